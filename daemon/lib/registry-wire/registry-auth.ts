// What one registry is answered with: nothing, Basic, or Bearer tokens from the realm its 401
// challenge names (Docker's token flow: a GET with Basic credentials, or the OAuth2 refresh grant
// with an identity token), cached per set of scopes until shortly before they expire.
import { UnauthorizedError, UnavailableError } from '../../api/errors';
import { httpRequest, type HttpRequestOptions, type HttpResponse } from '../http-client';
import { formatRegistryErrors, readRegistryErrors, type RegistryErrorDetail } from './registry-errors';
import { pickChallenge, type Challenge } from './www-authenticate';

export interface RegistryCredentials {
  /** Sent as Basic, or to the token server as the account. */
  username?: string;
  password?: string;
  /** A refresh token from a previous login, exchanged for access tokens. */
  identityToken?: string;
  /** A bearer token sent as is. */
  registryToken?: string;
}

export interface RegistryAuthOptions {
  /** `host[:port]`, for messages. */
  host: string;
  credentials?: RegistryCredentials;
  /** Sends Basic before any challenge (a registry known to take Basic); else waits to be asked. */
  basicUpFront?: boolean;
  userAgent: string;
  /** The OAuth2 client_id of the refresh grant. */
  clientId: string;
}

/** The token server answered other than 2xx: `status` says whether it refused the credentials. */
export class TokenRefusedError extends UnauthorizedError {
  constructor(
    readonly realm: string,
    readonly status: number,
    readonly errors: RegistryErrorDetail[],
  ) {
    super(`unable to get a token from ${realm}: ${status}: ${formatRegistryErrors(errors)}`);
  }
}

interface Token {
  value: string;
  expires: number;
}

export class RegistryAuth {
  private challenge: Challenge | undefined;
  private readonly tokens = new Map<string, Token>();
  private refreshToken: string | undefined;

  constructor(private readonly options: RegistryAuthOptions) {
    this.refreshToken = options.credentials?.identityToken;
  }

  /** The challenge answered so far, if any. */
  get current(): Challenge | undefined {
    return this.challenge;
  }

  /**
   * Takes the challenge of a 401 (or of the /v2/ ping). False when there is nothing new to answer:
   * no challenge, or a Basic one already answered (the credentials are wrong; asking again won't help).
   */
  learn(header: string | null): boolean {
    const challenge = pickChallenge(header);
    if (!challenge) return false;
    const known = this.challenge;
    this.challenge = challenge;
    this.tokens.clear();
    return !(challenge.scheme === 'basic' && known?.scheme === 'basic');
  }

  /** The Authorization header for a request needing `scopes`, fetching a token when due. */
  async authorization(scopes: string[], signal?: AbortSignal): Promise<string | undefined> {
    const { credentials, basicUpFront } = this.options;
    if (credentials?.registryToken) return `Bearer ${credentials.registryToken}`;
    const challenge = this.challenge;
    if (!challenge) return basicUpFront ? this.basic() : undefined;
    if (challenge.scheme === 'basic') return this.basic();
    const wanted = [...new Set(scopes)];
    const key = [...wanted].sort().join(' ');
    const cached = this.tokens.get(key);
    if (cached && cached.expires > Date.now()) return `Bearer ${cached.value}`;
    const token = await this.fetchToken(challenge, wanted, signal);
    this.tokens.set(key, token);
    return `Bearer ${token.value}`;
  }

  private basic(): string | undefined {
    const { username, password } = this.options.credentials ?? {};
    if (!username) return undefined;
    return `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}`;
  }

  /** The token flow: POST with a refresh token, else GET with Basic credentials (or none). */
  private async fetchToken(challenge: Challenge, scopes: string[], signal?: AbortSignal): Promise<Token> {
    const realm = challenge.params.realm;
    if (!realm)
      throw new UnauthorizedError(`registry ${this.options.host}: bearer challenge without a realm`);
    const service = challenge.params.service;
    let res: HttpResponse;
    if (this.refreshToken) {
      const form = new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: this.refreshToken,
        client_id: this.options.clientId,
      });
      if (service) form.set('service', service);
      if (scopes.length) form.set('scope', scopes.join(' '));
      res = await this.tokenRequest(realm, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
        signal,
      });
    } else {
      const url = new URL(realm);
      if (service) url.searchParams.set('service', service);
      for (const scope of scopes) url.searchParams.append('scope', scope);
      const basic = this.basic();
      if (basic) url.searchParams.set('account', this.options.credentials!.username!);
      res = await this.tokenRequest(url.toString(), {
        headers: basic ? { Authorization: basic } : {},
        signal,
      });
    }
    if (!res.ok) throw new TokenRefusedError(realm, res.status, await readRegistryErrors(res));
    const body = (await res.json()) as Record<string, unknown>;
    const value = body.token ?? body.access_token;
    if (typeof value !== 'string' || value === '')
      throw new UnauthorizedError(`token endpoint ${realm} answered without a token`);
    if (typeof body.refresh_token === 'string' && body.refresh_token) this.refreshToken = body.refresh_token;
    // Distribution's default lifetime is 60 s when expires_in is missing; renew a little early.
    const lifetime = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 60;
    return { value, expires: Date.now() + Math.max(lifetime - 5, 1) * 1000 };
  }

  private async tokenRequest(url: string, init: HttpRequestOptions): Promise<HttpResponse> {
    try {
      return await httpRequest(url, {
        ...init,
        headers: { 'User-Agent': this.options.userAgent, ...init.headers },
      });
    } catch (err) {
      if (init.signal?.aborted) throw err;
      throw new UnavailableError(`token endpoint ${url} is not reachable: ${describeNetworkError(err)}`, {
        cause: err,
      });
    }
  }
}

/** The code or message of a failed connection, as the messages above show it. */
export function describeNetworkError(err: unknown): string {
  const { cause, code, message } = err as {
    cause?: { message?: string; code?: string };
    code?: string;
    message: string;
  };
  return cause?.code ?? cause?.message ?? code ?? message;
}

// HTTP to one registry host: the scheme (plain HTTP only for loopback and insecure registries),
// authentication (anonymous, Basic, or Bearer tokens obtained from the realm named by a 401
// challenge, as Docker does), and one retry after a fresh challenge.
import { Readable } from 'node:stream';
import { UnauthorizedError, UnavailableError } from '../../../api/errors';
import {
  httpRequest,
  isLoopbackHost,
  type HttpRequestOptions,
  type HttpResponse,
} from '../../../lib/http-client';
import { credentials, type AuthConfig } from './auth-config';
import { parseWwwAuthenticate, type Challenge } from './www-authenticate';
import { readRegistryErrors, formatRegistryErrors } from './registry-errors';

export interface TransportOptions {
  /** `host[:port]` as in the reference's domain (docker.io already mapped to its API host). */
  host: string;
  auth?: AuthConfig;
  /** Hosts (`host:port`, or CIDR-less IPs) spoken to over plain HTTP besides loopback. */
  insecureRegistries?: string[];
  userAgent?: string;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** A replayable body (Buffer) is resent after an auth retry; a stream is sent once. */
  body?: Buffer | Readable;
  /** Token scopes the request needs, e.g. `repository:library/busybox:pull`. */
  scopes: string[];
  signal?: AbortSignal;
  redirect?: 'follow' | 'manual' | 'error';
}

interface Token {
  value: string;
  expires: number;
}

export class RegistryTransport {
  readonly baseUrl: string;
  private challenge: Challenge | undefined;
  private pinged = false;
  private readonly tokens = new Map<string, Token>();
  private refreshToken: string | undefined;

  constructor(private readonly options: TransportOptions) {
    const hostname = options.host.replace(/:\d+$/, '');
    const insecure =
      isLoopbackHost(options.host) ||
      (options.insecureRegistries ?? []).some((h) => h === options.host || h === hostname);
    this.baseUrl = `${insecure ? 'http' : 'https'}://${options.host}`;
    this.refreshToken = options.auth?.identitytoken;
  }

  /** Resolves a path or a Location header (relative or absolute) against the registry. */
  url(pathOrUrl: string): URL {
    return new URL(pathOrUrl, this.baseUrl);
  }

  /** Sends a request with the credentials the registry asked for; returns any answer but 401. */
  async fetch(pathOrUrl: string, options: RequestOptions): Promise<HttpResponse> {
    await this.ping(options.signal);
    let res = await this.send(pathOrUrl, options);
    if (res.status !== 401) return res;
    const challenge = this.pickChallenge(res.headers.get('www-authenticate'));
    const replayable = !(options.body instanceof Readable);
    if (!challenge || !replayable) throw await this.unauthorized(res);
    res.discard();
    this.challenge = challenge;
    this.tokens.clear();
    res = await this.send(pathOrUrl, { ...options, scopes: [...options.scopes, ...scopeOf(challenge)] });
    if (res.status === 401) throw await this.unauthorized(res);
    return res;
  }

  /** GET /v2/: learns the challenge once, as Docker's endpoint check does. */
  private async ping(signal?: AbortSignal): Promise<void> {
    if (this.pinged) return;
    let res: HttpResponse;
    try {
      res = await httpRequest(this.url('/v2/'), { headers: this.baseHeaders(), signal });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new UnavailableError(`registry ${this.options.host} is not reachable: ${describe(err)}`, {
        cause: err,
      });
    }
    res.discard();
    if (res.status === 401) this.challenge = this.pickChallenge(res.headers.get('www-authenticate'));
    else if (res.status >= 500)
      throw new UnavailableError(`registry ${this.options.host} answered ${res.status} to /v2/`);
    this.pinged = true;
  }

  private pickChallenge(header: string | null): Challenge | undefined {
    const challenges = parseWwwAuthenticate(header);
    return challenges.find((c) => c.scheme === 'bearer') ?? challenges.find((c) => c.scheme === 'basic');
  }

  private baseHeaders(): Record<string, string> {
    return { 'User-Agent': this.options.userAgent ?? 'svcd' };
  }

  private async send(pathOrUrl: string, options: RequestOptions): Promise<HttpResponse> {
    const headers: Record<string, string> = { ...this.baseHeaders(), ...options.headers };
    const authorization = await this.authorization(options.scopes, options.signal);
    if (authorization) headers.Authorization = authorization;
    try {
      return await httpRequest(this.url(pathOrUrl), {
        method: options.method ?? 'GET',
        headers,
        body: options.body,
        signal: options.signal,
        redirect: options.redirect ?? 'follow',
      });
    } catch (err) {
      if (options.signal?.aborted) throw err;
      throw new UnavailableError(`registry ${this.options.host}: ${describe(err)}`, { cause: err });
    }
  }

  private async authorization(scopes: string[], signal?: AbortSignal): Promise<string | undefined> {
    const auth = this.options.auth ?? {};
    if (auth.registrytoken) return `Bearer ${auth.registrytoken}`;
    if (!this.challenge) return undefined;
    if (this.challenge.scheme === 'basic') {
      const creds = credentials(auth);
      return creds
        ? `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`
        : undefined;
    }
    const key = [...new Set(scopes)].sort().join(' ');
    const cached = this.tokens.get(key);
    if (cached && cached.expires > Date.now()) return `Bearer ${cached.value}`;
    const token = await this.fetchToken(this.challenge, [...new Set(scopes)], signal);
    this.tokens.set(key, token);
    return `Bearer ${token.value}`;
  }

  /** The token flow: POST with a refresh token (identitytoken), else GET with Basic credentials. */
  private async fetchToken(challenge: Challenge, scopes: string[], signal?: AbortSignal): Promise<Token> {
    const realm = challenge.params.realm;
    if (!realm)
      throw new UnauthorizedError(`registry ${this.options.host}: bearer challenge without a realm`);
    const service = challenge.params.service;
    const creds = credentials(this.options.auth ?? {});
    let res: HttpResponse;
    if (this.refreshToken) {
      const form = new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: this.refreshToken,
        client_id: 'svcd',
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
      if (creds) url.searchParams.set('account', creds.username);
      const headers: Record<string, string> = {};
      if (creds)
        headers.Authorization = `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`;
      res = await this.tokenRequest(url.toString(), { headers, signal });
    }
    if (!res.ok) {
      const errors = await readRegistryErrors(res);
      throw new UnauthorizedError(
        `unable to get a token from ${realm}: ${res.status}: ${formatRegistryErrors(errors)}`,
      );
    }
    const body = (await res.json()) as Record<string, unknown>;
    const value = (body.token ?? body.access_token) as string | undefined;
    if (typeof value !== 'string' || value === '') {
      throw new UnauthorizedError(`token endpoint ${realm} answered without a token`);
    }
    if (typeof body.refresh_token === 'string' && body.refresh_token) this.refreshToken = body.refresh_token;
    // Distribution's default lifetime is 60 s when expires_in is missing; renew a little early.
    const lifetime = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 60;
    return { value, expires: Date.now() + Math.max(lifetime - 5, 1) * 1000 };
  }

  private async tokenRequest(url: string, init: HttpRequestOptions): Promise<HttpResponse> {
    try {
      return await httpRequest(url, { ...init, headers: { ...this.baseHeaders(), ...init.headers } });
    } catch (err) {
      if (init.signal?.aborted) throw err;
      throw new UnavailableError(`token endpoint ${url} is not reachable: ${describe(err)}`, { cause: err });
    }
  }

  private async unauthorized(res: HttpResponse): Promise<UnauthorizedError> {
    const errors = await readRegistryErrors(res);
    return new UnauthorizedError(formatRegistryErrors(errors));
  }
}

function scopeOf(challenge: Challenge): string[] {
  return challenge.params.scope ? challenge.params.scope.split(' ') : [];
}

function describe(err: unknown): string {
  const { cause, code, message } = err as {
    cause?: { message?: string; code?: string };
    code?: string;
    message: string;
  };
  return cause?.code ?? cause?.message ?? code ?? message;
}

// Requests to one V2 registry with its stored credentials, done in the main process: Basic sent
// up front, or the token dance (a 401's `WWW-Authenticate: Bearer realm,service,scope` → the
// token server with the credentials → the request again with the token). Tokens are cached per
// scope until they expire.
import type { RegistryAuthKind } from '../../../daemon/api/desktop-types';

export interface RegistryConfig {
  id: string;
  name: string;
  /** http(s)://host[:port], no path. */
  url: string;
  auth: RegistryAuthKind;
  username?: string;
  password?: string;
}

export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/**
 * The registry or its token server refused us (403: a gateway 401 would mean its own token), or
 * could not be reached (502).
 */
export class RegistryAccessError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface SessionInit {
  method?: string;
  headers?: Record<string, string>;
  /** A Buffer is resent after a challenge; a stream is sent once (its scope's token is fetched first). */
  body?: Buffer | ReadableStream<Uint8Array>;
  signal?: AbortSignal;
}

/** `Bearer realm="…",service="…",scope="…"` (RFC 7235; one challenge is all registries send). */
export function parseChallenge(header: string | null): Challenge | undefined {
  const m = header ? /^\s*([A-Za-z][\w-]*)\s*(.*)$/.exec(header) : null;
  if (!m) return undefined;
  const params: Record<string, string> = {};
  for (const p of m[2].matchAll(/([A-Za-z_][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g))
    params[p[1].toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : p[3];
  return { scheme: m[1].toLowerCase(), params };
}

/** The token scope a request needs, from its path and method (as Distribution names them). */
export function scopeOf(method: string, path: string): string | undefined {
  if (/^\/v2\/_catalog(?:\?|$)/.test(path)) return 'registry:catalog:*';
  const m = /^\/v2\/(.+?)\/(?:manifests|blobs|tags)\//.exec(path);
  if (!m) return undefined;
  const actions =
    method === 'GET' || method === 'HEAD' ? 'pull' : method === 'DELETE' ? 'delete' : 'pull,push';
  return `repository:${m[1]}:${actions}`;
}

export class RegistrySession {
  private challenge: Challenge | undefined;
  private readonly tokens = new Map<string, { value: string; expires: number }>();

  constructor(readonly config: RegistryConfig) {}

  /** `host[:port]`, as image references name this registry. */
  get host(): string {
    return new URL(this.config.url).host;
  }

  /** A request under the registry (`/v2/...`, or an absolute upload Location), answered as is but for auth. */
  async fetch(path: string, init: SessionInit = {}, extraScopes: string[] = []): Promise<Response> {
    const method = init.method ?? 'GET';
    const url = new URL(path, this.config.url);
    const scopes = [scopeOf(method, url.pathname + url.search), ...extraScopes].filter(
      (s): s is string => !!s,
    );
    let res = await this.send(url, init, scopes);
    if (res.status !== 401) return res;
    const challenge = parseChallenge(res.headers.get('www-authenticate'));
    if (!challenge || !(init.body === undefined || Buffer.isBuffer(init.body))) return res;
    const known = this.challenge;
    this.challenge = challenge;
    // A Basic challenge we already answered means the credentials are wrong: no retry.
    if (challenge.scheme === 'basic' && known?.scheme === 'basic') return res;
    await res.body?.cancel();
    const asked = challenge.params.scope ? challenge.params.scope.split(' ') : [];
    res = await this.send(url, init, [...new Set([...scopes, ...asked])], true);
    return res;
  }

  /** Checks the address and credentials (GET /v2/): throws a RegistryAccessError saying why. */
  async check(signal?: AbortSignal): Promise<void> {
    const res = await this.fetch('/v2/', { signal });
    await res.body?.cancel();
    if (res.status === 401) throw new RegistryAccessError(403, `${this.host} refused the credentials`);
    if (!res.ok) throw new RegistryAccessError(502, `${this.host} answered ${res.status} to /v2/`);
  }

  /** Credentials as the Docker Engine API takes them (X-Registry-Auth), or undefined for anonymous. */
  engineAuthHeader(): string | undefined {
    const { username, password } = this.config;
    if (this.config.auth === 'none' || !username) return undefined;
    const body = JSON.stringify({ username, password: password ?? '', serveraddress: this.host });
    return Buffer.from(body).toString('base64url');
  }

  private async send(url: URL, init: SessionInit, scopes: string[], fresh = false): Promise<Response> {
    const headers: Record<string, string> = { 'user-agent': 'svc-desktop', ...init.headers };
    const authorization = await this.authorization(scopes, fresh, init.signal);
    if (authorization) headers.authorization = authorization;
    try {
      return await fetch(url, {
        method: init.method ?? 'GET',
        headers,
        body: init.body,
        signal: init.signal,
        redirect: 'follow',
        ...(init.body && !Buffer.isBuffer(init.body) ? { duplex: 'half' } : {}),
      } as RequestInit);
    } catch (err) {
      if (init.signal?.aborted) throw err;
      throw new RegistryAccessError(502, `${this.host} is not reachable: ${describe(err)}`);
    }
  }

  private basic(): string | undefined {
    const { username, password } = this.config;
    if (this.config.auth === 'none' || !username) return undefined;
    return `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}`;
  }

  private async authorization(
    scopes: string[],
    fresh: boolean,
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    const challenge = this.challenge;
    if (!challenge) return this.config.auth === 'basic' ? this.basic() : undefined;
    if (challenge.scheme === 'basic') return this.basic();
    if (challenge.scheme !== 'bearer') return undefined;
    const key = [...new Set(scopes)].sort().join(' ');
    const cached = this.tokens.get(key);
    if (!fresh && cached && cached.expires > Date.now()) return `Bearer ${cached.value}`;
    const token = await this.fetchToken(challenge, [...new Set(scopes)], signal);
    this.tokens.set(key, token);
    return `Bearer ${token.value}`;
  }

  private async fetchToken(
    challenge: Challenge,
    scopes: string[],
    signal?: AbortSignal,
  ): Promise<{ value: string; expires: number }> {
    const realm = challenge.params.realm;
    if (!realm) throw new RegistryAccessError(502, `${this.host}: a Bearer challenge without a realm`);
    const url = new URL(realm);
    if (challenge.params.service) url.searchParams.set('service', challenge.params.service);
    for (const s of scopes) url.searchParams.append('scope', s);
    const basic = this.basic();
    if (basic) url.searchParams.set('account', this.config.username!);
    let res: Response;
    try {
      res = await fetch(url, { headers: basic ? { authorization: basic } : {}, signal });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new RegistryAccessError(502, `the token server ${url.origin} is not reachable: ${describe(err)}`);
    }
    const text = await res.text();
    if (!res.ok)
      throw new RegistryAccessError(
        res.status === 401 || res.status === 403 ? 403 : 502,
        `the token server of ${this.host} refused the credentials (${res.status}): ${text.slice(0, 200)}`,
      );
    const body = JSON.parse(text) as { token?: string; access_token?: string; expires_in?: number };
    const value = body.token ?? body.access_token;
    if (!value) throw new RegistryAccessError(502, `the token server of ${this.host} answered no token`);
    // 60 s when the server does not say (Distribution's default); renewed a little early.
    const lifetime = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 60;
    return { value, expires: Date.now() + Math.max(lifetime - 5, 1) * 1000 };
  }
}

function describe(err: unknown): string {
  const { cause, message } = err as { cause?: { code?: string; message?: string }; message: string };
  return cause?.code ?? cause?.message ?? message;
}

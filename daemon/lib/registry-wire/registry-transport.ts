// HTTP to one registry, shared by the engine's pull and push and the desktop's registry browser:
// each request carries what RegistryAuth says; a 401 with a new challenge is answered once more.
// Any answer is returned, a last 401 included: what a refusal means is the caller's to say.
import { Readable } from 'node:stream';
import { UnavailableError } from '../../api/errors';
import { httpRequest, type HttpResponse } from '../http-client';
import { describeNetworkError, RegistryAuth, type RegistryAuthOptions } from './registry-auth';
import { challengeScopes } from './www-authenticate';

export interface TransportOptions extends Omit<RegistryAuthOptions, 'host'> {
  /** `http(s)://host[:port]`. */
  origin: string;
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

export class RegistryTransport {
  readonly host: string;
  readonly auth: RegistryAuth;

  constructor(private readonly options: TransportOptions) {
    this.host = new URL(options.origin).host;
    this.auth = new RegistryAuth({ ...options, host: this.host });
  }

  /** Resolves a path or a Location header (relative or absolute) against the registry. */
  url(pathOrUrl: string): URL {
    return new URL(pathOrUrl, this.options.origin);
  }

  async fetch(pathOrUrl: string, options: RequestOptions): Promise<HttpResponse> {
    const res = await this.send(pathOrUrl, options);
    if (res.status !== 401 || options.body instanceof Readable) return res;
    if (!this.auth.learn(res.headers.get('www-authenticate'))) return res;
    res.discard();
    const asked = challengeScopes(this.auth.current!);
    return await this.send(pathOrUrl, { ...options, scopes: [...new Set([...options.scopes, ...asked])] });
  }

  /** GET /v2/ without credentials: learns the challenge before the first request, as Docker does. */
  async ping(signal?: AbortSignal): Promise<HttpResponse> {
    let res: HttpResponse;
    try {
      res = await httpRequest(this.url('/v2/'), { headers: this.baseHeaders(), signal });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new UnavailableError(`registry ${this.host} is not reachable: ${describeNetworkError(err)}`, {
        cause: err,
      });
    }
    res.discard();
    if (res.status === 401) this.auth.learn(res.headers.get('www-authenticate'));
    return res;
  }

  private baseHeaders(): Record<string, string> {
    return { 'User-Agent': this.options.userAgent };
  }

  private async send(pathOrUrl: string, options: RequestOptions): Promise<HttpResponse> {
    const headers: Record<string, string> = { ...this.baseHeaders(), ...options.headers };
    const authorization = await this.auth.authorization(options.scopes, options.signal);
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
      throw new UnavailableError(`registry ${this.host}: ${describeNetworkError(err)}`, { cause: err });
    }
  }
}

// Requests to one V2 registry with its stored credentials, done in the main process through the
// registry wire client the engine pulls with (daemon/lib/registry-wire): Basic sent up front for
// a basic-auth registry, or the token dance. Manifest and blob calls are the wire's (RegistryCalls,
// which verifies what it reads); a proxied request's scope is read from its path.
import type { Readable } from 'node:stream';
import type { RegistryAuthKind } from '../../../daemon/api/desktop-types';
import { SvcError, UnauthorizedError, UnavailableError } from '../../../daemon/api/errors';
import type { HttpResponse } from '../../../daemon/lib/http-client';
import { TokenRefusedError } from '../../../daemon/lib/registry-wire/registry-auth';
import { formatRegistryErrors } from '../../../daemon/lib/registry-wire/registry-errors';
import { RegistryCalls } from '../../../daemon/lib/registry-wire/registry-calls';
import { RegistryTransport, type RequestOptions } from '../../../daemon/lib/registry-wire/registry-transport';
import { scopeOfRequest } from '../../../daemon/lib/registry-wire/scopes';
import { DigestMismatchError } from '../../../daemon/lib/registry-wire/verifying-stream';

export interface RegistryConfig {
  id: string;
  name: string;
  /** http(s)://host[:port], no path. */
  url: string;
  auth: RegistryAuthKind;
  username?: string;
  password?: string;
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
  body?: Buffer | Readable;
  signal?: AbortSignal;
}

export class RegistrySession extends RegistryCalls {
  private readonly transport: RegistryTransport;

  constructor(readonly config: RegistryConfig) {
    super();
    const { auth, username, password } = config;
    this.transport = new RegistryTransport({
      origin: config.url,
      credentials: auth !== 'none' && username ? { username, password: password ?? '' } : undefined,
      basicUpFront: auth === 'basic',
      userAgent: 'svc-desktop',
      clientId: 'svc-desktop',
    });
  }

  /** `host[:port]`, as image references name this registry. */
  override get host(): string {
    return this.transport.host;
  }

  /** A request under the registry (`/v2/...`, or an absolute upload Location), answered as is but for auth. */
  async fetch(path: string, init: SessionInit = {}, extraScopes: string[] = []): Promise<HttpResponse> {
    const method = init.method ?? 'GET';
    const url = this.transport.url(path);
    const scopes = [scopeOfRequest(method, url.pathname + url.search), ...extraScopes].filter(
      (s): s is string => !!s,
    );
    return await this.send(url.toString(), { ...init, method, scopes });
  }

  protected override async send(pathOrUrl: string, options: RequestOptions): Promise<HttpResponse> {
    try {
      return await this.transport.fetch(pathOrUrl, options);
    } catch (err) {
      throw accessError(err, this.host);
    }
  }

  /** Checks the address and credentials (GET /v2/): throws a RegistryAccessError saying why. */
  async check(signal?: AbortSignal): Promise<void> {
    const res = await this.fetch('/v2/', { signal });
    res.discard();
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
}

/** The wire's typed errors as the gateway answers them: 403 for refused credentials, else 502. */
function accessError(err: unknown, host: string): unknown {
  if (err instanceof TokenRefusedError)
    return new RegistryAccessError(
      err.status === 401 || err.status === 403 ? 403 : 502,
      `the token server of ${host} refused the credentials (${err.status}): ${formatRegistryErrors(err.errors)}`,
    );
  if (err instanceof UnauthorizedError || err instanceof UnavailableError)
    return new RegistryAccessError(502, err.message);
  return err;
}

/**
 * A registry's answer as the gateway passes it on (registry-errors' typed errors): not found and
 * refused as such (403: a gateway 401 would mean its own token), a bad request as 400, and what
 * the registry got wrong (content that does not match its digest, failures) as 502.
 */
export function answerStatus(err: SvcError): number {
  if (err instanceof DigestMismatchError) return 502;
  if (err.kind === 'not-found') return 404;
  if (err.kind === 'unauthorized' || err.kind === 'forbidden') return 403;
  if (err.kind === 'invalid-parameter') return 400;
  return 502;
}

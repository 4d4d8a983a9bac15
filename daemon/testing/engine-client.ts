// A minimal Engine API client over svcd's unix socket, for tests and benches.
import { http, type HttpResponse } from './http-client';

export type EngineResponse = HttpResponse;

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
}

/** A request with a JSON body (a Buffer goes as it is). */
/** svcd or a Docker Engine peer: anything that answers Engine API requests. */
export interface EngineApi {
  request(method: string, path: string, opts?: RequestOptions): Promise<EngineResponse>;
}

export function engineRequest(
  socketPath: string,
  method: string,
  path: string,
  opts: RequestOptions = {},
): Promise<EngineResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: Buffer | undefined;
  if (Buffer.isBuffer(opts.body)) body = opts.body;
  else if (opts.body !== undefined) {
    body = Buffer.from(JSON.stringify(opts.body));
    headers['Content-Type'] ??= 'application/json';
  }
  return http(path, { socketPath, method, headers, body });
}

/**
 * A `since` (Unix seconds) for the events that follow and none before: a few milliseconds pass
 * first, since an event stamped in the same millisecond as `since` is included.
 */
export async function eventsSince(): Promise<number> {
  await new Promise((r) => setTimeout(r, 3));
  return Date.now() / 1000;
}

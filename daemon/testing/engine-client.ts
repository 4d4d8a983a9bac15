// A minimal Engine API client over svcd's unix socket, for tests and benches.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface EngineResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text(): string;
  json<T = unknown>(): T;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
}

export function engineRequest(
  socketPath: string,
  method: string,
  path: string,
  opts: RequestOptions = {},
): Promise<EngineResponse> {
  return new Promise((resolve, reject) => {
    const body =
      opts.body === undefined
        ? undefined
        : Buffer.isBuffer(opts.body)
          ? opts.body
          : Buffer.from(JSON.stringify(opts.body));
    const headers: Record<string, string | number> = { ...opts.headers };
    if (body) {
      headers['Content-Length'] = body.length;
      if (!Buffer.isBuffer(opts.body)) headers['Content-Type'] ??= 'application/json';
    }
    const req = httpRequest({ socketPath, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const data = Buffer.concat(chunks);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: data,
          text: () => data.toString('utf8'),
          json: <T>() => JSON.parse(data.toString('utf8')) as T,
        });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A `since` (Unix seconds) for the events that follow and none before: a few milliseconds pass
 * first, since an event stamped in the same millisecond as `since` is included.
 */
export async function eventsSince(): Promise<number> {
  await new Promise((r) => setTimeout(r, 3));
  return Date.now() / 1000;
}

// The one HTTP client of tests and benches: bodies kept as Buffers, request bodies streamed,
// redirects never followed (tests look at Location themselves); over TCP or a unix socket.
import { Agent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text(): string;
  json<T = Record<string, unknown>>(): T;
}

export interface HttpRequest {
  method?: string;
  headers?: Record<string, string | number | string[]>;
  body?: string | Buffer | Readable;
  /** Discard the response body instead of collecting it (large pulls). */
  discardBody?: boolean;
  /** Send to this unix socket; the target is then the request's path. */
  socketPath?: string;
}

export const keepAliveAgent = new Agent({ keepAlive: true, maxSockets: 16 });

/** `target` is a URL, or with `socketPath` a path. */
export function http(target: string, options: HttpRequest = {}): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers };
    const body = options.body;
    if ((typeof body === 'string' || Buffer.isBuffer(body)) && headers['Content-Length'] === undefined) {
      headers['Content-Length'] = Buffer.byteLength(body);
    }
    const method = options.method ?? 'GET';
    const onResponse = (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        if (!options.discardBody) chunks.push(c);
      });
      res.on('error', reject);
      res.on('end', () => {
        const data = Buffer.concat(chunks);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: data,
          text: () => data.toString('utf8'),
          json: () => JSON.parse(data.toString('utf8')),
        });
      });
    };
    const req = options.socketPath
      ? httpRequest({ socketPath: options.socketPath, path: target, method, headers }, onResponse)
      : httpRequest(target, { method, headers, agent: keepAliveAgent }, onResponse);
    req.on('error', reject);
    if (body === undefined) req.end();
    else if (typeof body === 'string' || Buffer.isBuffer(body)) req.end(body);
    else body.pipe(req);
  });
}

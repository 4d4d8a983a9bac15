// A small HTTP client for tests and benches: keeps bodies as Buffers, streams request bodies,
// and never follows redirects (tests look at Location themselves).
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json<T = Record<string, unknown>>(): T;
}

export interface HttpRequest {
  method?: string;
  headers?: Record<string, string | number | string[]>;
  body?: string | Buffer | Readable;
  /** Discard the response body instead of collecting it (large pulls). */
  discardBody?: boolean;
}

export const keepAliveAgent = new Agent({ keepAlive: true, maxSockets: 16 });

export function http(url: string, options: HttpRequest = {}): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers };
    const body = options.body;
    if ((typeof body === 'string' || Buffer.isBuffer(body)) && headers['Content-Length'] === undefined) {
      headers['Content-Length'] = Buffer.byteLength(body);
    }
    const req = httpRequest(
      url,
      { method: options.method ?? 'GET', headers, agent: keepAliveAgent },
      (res) => {
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
            json: () => JSON.parse(data.toString()),
          });
        });
      },
    );
    req.on('error', reject);
    if (body === undefined) req.end();
    else if (typeof body === 'string' || Buffer.isBuffer(body)) req.end(body);
    else body.pipe(req);
  });
}

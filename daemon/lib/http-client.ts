// A small HTTP(S) client whose bodies are Node streams. The registry client moved off `fetch` to
// this: WHATWG fetch hands a blob over through web streams (and Readable.fromWeb), which cost half
// as much CPU again per byte as an IncomingMessage, and a pull is CPU-bound.
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { isLoopbackHost } from './loopback-host';

export interface HttpRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** A stream body is sent once: a redirect answer to it is returned, not followed. */
  body?: Buffer | string | Readable;
  signal?: AbortSignal;
  /** `follow` (the default) follows up to 10 redirects; `error` rejects on one. */
  redirect?: 'follow' | 'manual' | 'error';
}

export class HttpHeaders {
  constructor(private readonly raw: http.IncomingHttpHeaders) {}

  /** The header's value (repeated ones joined with `, `), or null, as Headers.get answers. */
  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
}

export class HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HttpHeaders;

  constructor(
    /** The URL that answered, after redirects. */
    readonly url: string,
    readonly body: http.IncomingMessage,
  ) {
    this.status = body.statusCode ?? 0;
    this.statusText = body.statusMessage ?? '';
    this.headers = new HttpHeaders(body.headers);
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  async buffer(): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async text(): Promise<string> {
    return (await this.buffer()).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  /** Drops an unread body; the connection is reused when the body was empty or short. */
  discard(): void {
    if (this.body.complete) return;
    this.body.resume();
  }
}

// Connections are kept for the next request to the same host, as fetch keeps them.
const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};
const MAX_REDIRECTS = 10;
let loopbackAgent: http.Agent | undefined;
/** Plain HTTP to the host's loopback goes through `agent` (a rootless svcd's relay). */
export function routeLoopbackThrough(agent: http.Agent): void {
  loopbackAgent = agent;
}

/** Sends one request, following redirects unless told not to; resolves once headers arrive. */
export async function httpRequest(
  target: string | URL,
  options: HttpRequestOptions = {},
): Promise<HttpResponse> {
  let url = new URL(target);
  let method = (options.method ?? 'GET').toUpperCase();
  let headers = { ...options.headers };
  let body = options.body;
  for (let redirects = 0; ; redirects++) {
    const res = await send(url, method, headers, body, options.signal);
    const location = res.headers.get('location');
    if (!isRedirect(res.status) || !location || options.redirect === 'manual') return res;
    res.discard();
    if (options.redirect === 'error' || body instanceof Readable)
      throw new Error(`redirect from ${url.origin}${url.pathname} to ${location} not followed`);
    if (redirects >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects from ${target}`);
    const next = new URL(location, url);
    // Credentials are for the origin that asked for them: a blob redirected to storage carries
    // its own (a signed URL) and would be refused with ours.
    if (next.origin !== url.origin) headers = withoutHeader(headers, 'authorization');
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      method = method === 'HEAD' ? 'HEAD' : 'GET';
      body = undefined;
      headers = withoutHeader(withoutHeader(headers, 'content-type'), 'content-length');
    }
    url = next;
  }
}

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: HttpRequestOptions['body'],
  signal: AbortSignal | undefined,
): Promise<HttpResponse> {
  const loopback = url.protocol === 'http:' && isLoopbackHost(url.host) ? loopbackAgent : undefined;
  const agent = loopback ?? agents[url.protocol as keyof typeof agents];
  if (!agent) return Promise.reject(new Error(`unsupported URL scheme in ${url.href}`));
  const request = (url.protocol === 'https:' ? https : http).request;
  return new Promise<HttpResponse>((resolve, reject) => {
    const req = request(url, { method, headers, agent, signal });
    req.on('response', (res) => resolve(new HttpResponse(url.href, res)));
    req.on('error', reject);
    if (body instanceof Readable) {
      body.on('error', (err) => req.destroy(err));
      // A request that fails part-way leaves its body unread: let go of what feeds it.
      req.on('close', () => {
        if (!body.readableEnded) body.destroy();
      });
      body.pipe(req);
    } else {
      req.end(body);
    }
  });
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

function withoutHeader(headers: Record<string, string>, name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([key]) => key.toLowerCase() !== name));
}

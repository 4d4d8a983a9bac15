// The few S3 calls the S3 driver makes, as SigV4-signed requests (signed by `aws4`) over Node's
// own http(s) agent, path-style (`/<bucket>/<key>`), so an S3-compatible store on any host works.
// Bodies stream both ways: a response is handed over as it arrives, and a request body is either
// a buffer or a stream of known length sent with an unsigned payload hash (no trailing checksums,
// which Ceph's gateway refuses on streamed bodies).
import { sign } from 'aws4';
import { createHash } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import type { Readable } from 'node:stream';
import type { SocketBody } from './driver';

export interface S3Options {
  /** e.g. http://127.0.0.1:7480 */
  endpoint: string;
  region: string;
  bucket: string;
  accessKey: string;
  secretKey: string;
  /** Accept any certificate of an https endpoint. */
  skipVerify?: boolean;
  storageClass?: string;
}

export interface S3Request {
  method: string;
  /** The object key; absent for bucket-level calls. */
  key?: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: Buffer | { stream: Readable; length: number };
  /** Statuses answered to the caller rather than thrown (404 for a lookup). */
  accept?: number[];
}

/** An S3 error answer: its status and the XML error code. */
export class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeXml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos|#(\d+)|#x([0-9a-f]+));/gi, (_, name: string, dec, hex) =>
    dec ? String.fromCodePoint(Number(dec)) : hex ? String.fromCodePoint(parseInt(hex, 16)) : entities[name],
  );
}

/** The text of every `<tag>` element of an S3 answer (S3's answers are flat, without attributes on these). */
export function xmlValues(xml: string, tag: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g');
  for (let m = re.exec(xml); m; m = re.exec(xml)) out.push(unescapeXml(m[1]));
  return out;
}

export function xmlValue(xml: string, tag: string): string | undefined {
  return xmlValues(xml, tag)[0];
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&${Object.keys(entities).find((k) => entities[k] === c)};`);
}

export function xmlElement(tag: string, value: string): string {
  return `<${tag}>${escapeXml(value)}</${tag}>`;
}

function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

export async function readAll(res: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of res as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const headEnd = Buffer.from('\r\n\r\n');
const headLimit = 64 << 10;

/** The status and lower-cased headers of an HTTP answer's head. */
function parseHead(head: string): { status: number; headers: Map<string, string> } {
  const [statusLine, ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status, headers };
}

export class S3Client {
  private readonly url: URL;
  private readonly agent: HttpAgent;

  constructor(readonly options: S3Options) {
    this.url = new URL(options.endpoint);
    const secure = this.url.protocol === 'https:';
    this.agent = secure
      ? new HttpsAgent({ keepAlive: true, maxSockets: 64, rejectUnauthorized: !options.skipVerify })
      : new HttpAgent({ keepAlive: true, maxSockets: 64 });
  }

  private path(key: string | undefined, query?: Record<string, string>): string {
    let path = `/${this.options.bucket}${key === undefined ? '' : `/${encodeKey(key)}`}`;
    if (query && Object.keys(query).length) {
      path +=
        '?' +
        Object.entries(query)
          .map(([k, v]) =>
            v === '' ? encodeURIComponent(k) : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`,
          )
          .join('&');
    }
    return path;
  }

  private signed(method: string, path: string, headers: Record<string, string>, signQuery = false) {
    return sign(
      {
        host: this.url.host,
        method,
        path,
        service: 's3',
        region: this.options.region,
        headers,
        signQuery,
      },
      { accessKeyId: this.options.accessKey, secretAccessKey: this.options.secretKey },
    );
  }

  /** A pre-signed GET of an object, valid for `expiresSeconds`. */
  presignedGet(key: string, expiresSeconds: number): string {
    const signed = this.signed('GET', this.path(key, { 'X-Amz-Expires': String(expiresSeconds) }), {}, true);
    return `${this.url.protocol}//${this.url.host}${signed.path}`;
  }

  /** Sends a request; the answer's body is left to the caller for accepted statuses and 2xx. */
  async send(r: S3Request): Promise<IncomingMessage> {
    const headers: Record<string, string> = { ...r.headers };
    let bodyBuffer: Buffer | undefined;
    if (Buffer.isBuffer(r.body)) {
      bodyBuffer = r.body;
      headers['Content-Length'] = String(r.body.length);
      headers['X-Amz-Content-Sha256'] = createHash('sha256').update(r.body).digest('hex');
    } else if (r.body) {
      headers['Content-Length'] = String(r.body.length);
      headers['X-Amz-Content-Sha256'] = 'UNSIGNED-PAYLOAD';
    } else if (r.method === 'PUT' || r.method === 'POST') {
      headers['Content-Length'] = '0';
    }
    const signed = this.signed(r.method, this.path(r.key, r.query), headers);
    const send = this.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = send({
        host: this.url.hostname,
        port: this.url.port || undefined,
        method: r.method,
        path: signed.path,
        headers: signed.headers as Record<string, string>,
        agent: this.agent,
      });
      req.once('response', resolve);
      req.once('error', reject);
      if (bodyBuffer) req.end(bodyBuffer);
      else if (r.body && !Buffer.isBuffer(r.body)) {
        r.body.stream.once('error', (err) => req.destroy(err));
        r.body.stream.pipe(req);
      } else req.end();
    });
    const status = res.statusCode ?? 0;
    if ((status >= 200 && status < 300) || r.accept?.includes(status)) return res;
    const text = (await readAll(res)).toString();
    const code = xmlValue(text, 'Code') ?? String(status);
    throw new S3Error(status, code, `S3 ${r.method} ${r.key ?? this.options.bucket}: ${status} ${code}`);
  }

  /**
   * A ranged GET on a connection of its own whose body is left unread on the socket, for a
   * reader that moves it without Node (the blob sender's splice). Reading stops right after the
   * head (the socket's own `onread` buffer, paused by returning false). Plain http only: under
   * TLS the bytes must pass through Node to be decrypted, so it is undefined there.
   */
  async bodySocket(key: string, start: number, end: number): Promise<SocketBody | undefined> {
    if (this.url.protocol !== 'http:') return undefined;
    const signed = this.signed('GET', this.path(key), { Range: `bytes=${start}-${end}` });
    const lines = Object.entries(signed.headers as Record<string, string>).map(([k, v]) => `${k}: ${v}`);
    const request = `GET ${signed.path} HTTP/1.1\r\n${lines.join('\r\n')}\r\nConnection: close\r\n\r\n`;
    const length = end - start + 1;
    return new Promise<SocketBody>((resolve, reject) => {
      let got = Buffer.alloc(0);
      const socket = connect({
        host: this.url.hostname,
        port: Number(this.url.port || 80),
        onread: {
          buffer: Buffer.alloc(16 << 10),
          callback: (n, buffer) => {
            got = Buffer.concat([got, buffer.subarray(0, n)]);
            const at = got.indexOf(headEnd);
            if (at < 0) {
              if (got.length > headLimit) fail(new Error(`S3 GET ${key}: an answer head over 64 KiB`));
              return true;
            }
            const { status, headers } = parseHead(got.subarray(0, at).toString('latin1'));
            const size = Number(headers.get('content-length'));
            const first = got.subarray(at + headEnd.length);
            if (status !== 200 && status !== 206)
              fail(new S3Error(status, String(status), `S3 GET ${key}: ${status}`));
            else if (headers.has('transfer-encoding') || size !== length || first.length > length)
              fail(
                new Error(`S3 GET ${key}: a body of ${headers.get('content-length')} bytes, ${length} asked`),
              );
            else {
              socket.off('end', ended);
              // From here the relay reports a broken connection itself.
              socket.off('error', fail).on('error', () => undefined);
              resolve({ socket, first, rest: length - first.length });
            }
            return false;
          },
        },
      });
      const fail = (err: Error): void => {
        socket.destroy();
        reject(err);
      };
      const ended = (): void => fail(new Error(`S3 GET ${key}: the connection closed before the answer`));
      socket.once('error', fail);
      socket.once('end', ended);
      socket.write(request);
    });
  }

  /** Sends a request and reads the answer whole (small XML answers). */
  async call(r: S3Request): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
    const res = await this.send(r);
    return { status: res.statusCode ?? 0, headers: res.headers, body: (await readAll(res)).toString() };
  }

  /** Creates the bucket; one that exists already and is ours is fine. */
  async createBucket(): Promise<void> {
    try {
      await this.call({ method: 'PUT' });
    } catch (err) {
      if (!(err instanceof S3Error && err.code === 'BucketAlreadyOwnedByYou')) throw err;
    }
  }

  close(): void {
    this.agent.destroy();
  }
}

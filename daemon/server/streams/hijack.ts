// Taking an HTTP connection over for a raw bidirectional stream (attach, exec start, logs): answer
// 101 when the client asked for `Upgrade: tcp`, else 200, then bytes in both directions.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidParameterError } from '../../api/errors';
import { hostCalls } from '../../lib/host-calls';

/** The spec's media type of a hijacked stream. Docker's twin is `rawStreamMediaTypeTwin`. */
export const rawStreamMediaType = 'application/vnd.svc.raw-stream';
export const rawStreamMediaTypeTwin = 'application/vnd.docker.raw-stream';

// The HTTP server's own framing headers make no sense once the connection is raw.
const droppedHeaders = new Set([
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'upgrade',
]);
// Events through which node:http's server drives a connection; a hijacked one must not hear them.
// Its listeners are named socketOnData, socketOnEnd... (bound ones `bound socketOn…`).
const serverEvents = ['data', 'end', 'error', 'timeout', 'drain'] as const;
const serverListener = /(^|\s)socketOn[A-Z]/;

export interface HijackOptions {
  /** Headers to send besides those already set on the response (API-Version, Server...). */
  headers?: OutgoingHttpHeaders;
  /** Defaults to the spec's raw-stream type. */
  contentType?: string;
}

/** A hijacked connection. `conn` reads the client's stdin ('end' on its CloseWrite) and takes output. */
export interface HijackedConnection {
  readonly conn: Duplex;
  /** True when the answer was 101 (the client sent `Connection: Upgrade` and `Upgrade: tcp`). */
  readonly upgraded: boolean;
  /** Aborted when the connection is gone: closed, reset or destroyed. */
  readonly signal: AbortSignal;
  /** Resolves once the connection is closed, whoever closed it. */
  readonly closed: Promise<void>;
  /** When the head was handed to the kernel (Date.now()). */
  readonly headWrittenAt: number;
  /** Sends what is queued, then closes the connection. Idempotent. */
  close(): void;
}

/**
 * Waits until the client has read the head, before output that is ready at once (an attach's log
 * replay) follows it. A client such as docker-py reads the head with a buffered reader and the
 * rest from the socket beneath it, so bytes that reach it before it has read the head are lost.
 * On a unix socket the kernel says when the client has read everything sent (SIOCOUTQ is 0), up
 * to `headReadLimitMs` for a client that reads nothing; on TCP, or without the native module,
 * nothing says it, and the head gets `headReadGraceMs` from its writing: the time a client takes
 * to be scheduled and read it on a quiet machine. An exec's output, held while its process
 * started, waits for it too: a client slow to be scheduled may not have read the head yet.
 */
export async function untilHeadRead(conn: HijackedConnection): Promise<void> {
  const socket = conn.conn as Socket;
  const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
  const native = hostCalls();
  if (!native || typeof fd !== 'number' || fd < 0 || typeof socket.remotePort === 'number') {
    const left = conn.headWrittenAt + headReadGraceMs - Date.now();
    return left > 0 ? sleep(left) : undefined;
  }
  const deadline = Date.now() + headReadLimitMs;
  while (!socket.destroyed && native.unreadBytes(fd) > 0 && Date.now() < deadline) await sleep(1);
}
const headReadGraceMs = 25;
const headReadLimitMs = 2000;

/** True when the request asked to upgrade to a raw TCP stream. */
export function wantsTcpUpgrade(req: IncomingMessage): boolean {
  const connection = String(req.headers.connection ?? '').toLowerCase();
  const upgrade = String(req.headers.upgrade ?? '').toLowerCase();
  return connection.split(',').some((t) => t.trim() === 'upgrade') && upgrade === 'tcp';
}

/**
 * Takes over the connection under `res` (from the server's 'request' or, via a ServerResponse
 * assigned to the socket, its 'upgrade' event) and writes the status line and headers, resolving
 * once they are handed to the kernel on their own. Clients such as docker-py parse the head through
 * a buffered reader and then read the raw socket beneath it: output sent with the head would be
 * lost to them, so nothing else may be written before this resolves. After this nothing may be
 * written through `res`. Only the 'upgrade' path keeps bytes the client sent in the same packet as
 * the request; from a 'request' handler node's parser has already consumed them.
 */
export async function hijack(
  req: IncomingMessage,
  res: ServerResponse,
  options: HijackOptions = {},
): Promise<HijackedConnection> {
  const socket = (res.socket ?? req.socket) as Socket | null;
  if (!socket || socket.destroyed) throw new InvalidParameterError('connection already closed');
  if (res.headersSent) throw new Error('cannot hijack: a response was already started');
  detachFromHttpServer(socket);

  const upgraded = wantsTcpUpgrade(req);
  const lines = [
    upgraded ? 'HTTP/1.1 101 UPGRADED' : 'HTTP/1.1 200 OK',
    `Content-Type: ${options.contentType ?? rawStreamMediaType}`,
  ];
  if (upgraded) lines.push('Connection: Upgrade', 'Upgrade: tcp');
  const headers: OutgoingHttpHeaders = {};
  for (const name of res.getHeaderNames()) headers[rawName(res, name)] = res.getHeader(name);
  Object.assign(headers, options.headers);
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || droppedHeaders.has(name.toLowerCase())) continue;
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${v}`);
  }
  const tracked = track(socket, upgraded);
  // A failed write ends in 'close', which the tracked connection reports.
  await new Promise<void>((resolve) => socket.write(`${lines.join('\r\n')}\r\n\r\n`, () => resolve()));
  return { ...tracked, headWrittenAt: Date.now() };
}

/** The header name as the code that set it spelled it (`API-Version`, not `api-version`). */
function rawName(res: ServerResponse, lower: string): string {
  // Present on every OutgoingMessage since Node 18; @types/node declares it only for requests.
  const names = (res as unknown as { getRawHeaderNames(): string[] }).getRawHeaderNames();
  return names.find((n) => n.toLowerCase() === lower) ?? lower;
}

/**
 * Node's server keeps parsing a connection after a request; left alone it would read stdin as the
 * next request and answer a client's CloseWrite by closing. Listening for 'readable' moves the
 * socket off the parser's native read path; then the server's listeners are removed. On a socket
 * that came from an 'upgrade' event there is nothing to remove. The server's 'close' listeners stay:
 * they release its bookkeeping and end the response, which aborts the handler's signal.
 */
function detachFromHttpServer(socket: Socket): void {
  const probe = () => undefined;
  socket.on('readable', probe);
  socket.off('readable', probe);
  for (const event of serverEvents) {
    for (const l of socket.listeners(event)) if (serverListener.test(l.name)) socket.off(event, l as never);
  }
  socket.setTimeout(0);
  socket.setNoDelay(true);
}

function track(socket: Socket, upgraded: boolean): Omit<HijackedConnection, 'headWrittenAt'> {
  const abort = new AbortController();
  const closed = new Promise<void>((resolve) => {
    const done = () => {
      abort.abort();
      resolve();
    };
    if (socket.destroyed) done();
    else socket.once('close', done);
  });
  // A reset client is an ordinary end of a session, not a crash; 'close' follows.
  socket.on('error', () => socket.destroy());
  let closing = false;
  return {
    conn: socket,
    upgraded,
    signal: abort.signal,
    closed,
    close() {
      if (closing || socket.destroyed) return;
      closing = true;
      // End our side once output is flushed, then drop the connection even if the client
      // keeps its side open: the stream is over.
      socket.end(() => socket.destroy());
    },
  };
}

/**
 * For an 'upgrade' request node:http does not read the body: it is on the socket, ahead of stdin
 * (exec start sends `{"Detach":false,"Tty":true}` that way). Reads exactly Content-Length bytes.
 */
export function readUpgradeBody(req: IncomingMessage, socket: Duplex, limit = 1024 * 1024): Promise<Buffer> {
  const length = Number(req.headers['content-length'] ?? 0);
  if (!Number.isSafeInteger(length) || length < 0) throw new InvalidParameterError('invalid Content-Length');
  if (length > limit) throw new InvalidParameterError(`request body larger than ${limit} bytes`);
  if (length === 0) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let got = 0;
    const cleanup = () => {
      socket.off('readable', onReadable);
      socket.off('end', onEnd);
      socket.off('close', onEnd);
    };
    const onEnd = () => {
      cleanup();
      reject(new InvalidParameterError('request body ended before Content-Length bytes'));
    };
    const onReadable = () => {
      let chunk: Buffer | null;
      while (got < length && (chunk = socket.read() as Buffer | null) !== null) {
        const need = length - got;
        if (chunk.length > need) {
          socket.unshift(chunk.subarray(need));
          chunk = chunk.subarray(0, need);
        }
        chunks.push(chunk);
        got += chunk.length;
      }
      if (got === length) {
        cleanup();
        resolve(Buffer.concat(chunks));
      }
    };
    socket.on('readable', onReadable);
    socket.on('end', onEnd);
    socket.on('close', onEnd);
    onReadable();
  });
}

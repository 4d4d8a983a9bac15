// RFC 6455 for GET /containers/{id}/attach/ws (and the gateway's terminals): the handshake on an
// upgraded connection, then a Duplex whose writes are frames and whose reads are message payloads.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { InvalidParameterError } from '../../api/errors';

export interface WebSocketOptions {
  /** Binary frames from API 1.28; text frames before, as Docker sends them. */
  binary: boolean;
  /** When set, pings this often and drops a peer that misses a pong for as long. */
  keepAliveMs?: number;
}

const acceptor = new WebSocketServer({ noServer: true, perMessageDeflate: false });

/** Checks the request is a WebSocket handshake, so the caller can answer 400 if it is not. */
export function isWebSocketHandshake(req: IncomingMessage): boolean {
  const upgrade = String(req.headers.upgrade ?? '').toLowerCase();
  const key = req.headers['sec-websocket-key'];
  return (
    req.method === 'GET' &&
    upgrade === 'websocket' &&
    typeof key === 'string' &&
    /^[+/0-9A-Za-z]{22}==$/.test(key.trim()) &&
    req.headers['sec-websocket-version'] === '13'
  );
}

/**
 * Completes the handshake on the connection under `res` (a ServerResponse assigned to the socket
 * of an 'upgrade' event, whose early bytes were already put back) or on a bare upgrade socket.
 */
export async function acceptWebSocket(
  req: IncomingMessage,
  target: ServerResponse | Duplex,
  options: WebSocketOptions,
  head: Buffer = Buffer.alloc(0),
): Promise<WebSocketStream> {
  if (!isWebSocketHandshake(req)) throw new InvalidParameterError('not a WebSocket handshake (RFC 6455)');
  const socket = target instanceof Duplex ? target : target.socket;
  if (!socket || socket.destroyed) throw new InvalidParameterError('connection already closed');
  return await new Promise((resolve, reject) => {
    const onClientError = (err: Error) => {
      acceptor.off('wsClientError', onClientError);
      socket.destroy();
      reject(new InvalidParameterError(`WebSocket handshake failed: ${err.message}`));
    };
    acceptor.on('wsClientError', onClientError);
    acceptor.handleUpgrade(req, socket, head, (ws) => {
      acceptor.off('wsClientError', onClientError);
      resolve(new WebSocketStream(ws, options));
    });
  });
}

/**
 * One WebSocket as a byte stream. The peer's close (or loss) ends the readable side; ending the
 * writable side sends a normal close (1000).
 */
export class WebSocketStream extends Duplex {
  private keepAlive: NodeJS.Timeout | undefined;
  private alive = true;

  constructor(
    readonly ws: WebSocket,
    private readonly options: WebSocketOptions,
  ) {
    super({ allowHalfOpen: false });
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
      const chunk = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
      if (!this.push(chunk)) ws.pause();
    });
    ws.on('pong', () => (this.alive = true));
    ws.on('close', () => {
      this.stopKeepAlive();
      this.push(null);
      this.destroy();
    });
    ws.on('error', (err) => this.destroy(err));
    if (options.keepAliveMs) this.startKeepAlive(options.keepAliveMs);
  }

  override _read(): void {
    this.ws.resume();
  }

  /**
   * Output for a peer that is going or gone is dropped: its going is reported by 'close', and an
   * error here would reach whoever writes late (a multiplexer flushing), where nobody listens.
   */
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (this.ws.readyState !== WebSocket.OPEN) return cb();
    this.ws.send(chunk, { binary: this.options.binary }, (err) =>
      cb(this.ws.readyState === WebSocket.OPEN ? (err ?? null) : null),
    );
  }

  override _final(cb: (err?: Error | null) => void): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.close(1000);
    cb();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.stopKeepAlive();
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) {
      if (err) this.ws.terminate();
      else this.ws.close(1000);
    }
    cb(err);
  }

  private startKeepAlive(ms: number): void {
    this.keepAlive = setInterval(() => {
      if (!this.alive) {
        this.ws.terminate();
        return;
      }
      this.alive = false;
      this.ws.ping();
    }, ms);
    this.keepAlive.unref();
  }

  private stopKeepAlive(): void {
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }
}

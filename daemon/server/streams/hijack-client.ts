// The client side of a hijacked stream, for the desktop gateway and for tests: send a request
// asking for `Upgrade: tcp` and get the raw connection back once the server answers 101.
import { request, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** `dial` makes the connection itself (a TLS session, an ssh pipe): the desktop's added engines. */
export type EngineAddress = { socketPath: string } | { host: string; port: number } | { dial: () => Duplex };

export interface HijackRequest {
  method: string;
  path: string;
  headers?: OutgoingHttpHeaders;
  body?: Buffer | string;
}

export interface HijackResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** Output arrives here; writes are stdin; end() is CloseWrite (stdin EOF for the process). */
  conn: Socket;
}

/** An answer other than 101: the status and the body the server sent with it. */
export class HijackRefusedError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: string,
  ) {
    super(`server answered ${statusCode} instead of upgrading: ${body.trim()}`);
  }
}

export function requestHijack(address: EngineAddress, req: HijackRequest): Promise<HijackResponse> {
  const body = req.body === undefined ? undefined : Buffer.from(req.body);
  return new Promise((resolve, reject) => {
    const r = request({
      method: req.method,
      path: req.path,
      // Half-open: the server finishing its output must not close our stdin side, nor the reverse.
      createConnection: () =>
        'dial' in address
          ? (address.dial() as Socket)
          : 'socketPath' in address
            ? connect({ path: address.socketPath, allowHalfOpen: true })
            : connect({ host: address.host, port: address.port, allowHalfOpen: true }),
      headers: {
        Host: 'svcd',
        ...req.headers,
        Connection: 'Upgrade',
        Upgrade: 'tcp',
        ...(body ? { 'Content-Length': body.length } : {}),
      },
    });
    let socket: Socket | undefined;
    r.on('socket', (s: Socket) => (socket = s));
    r.on('upgrade', (res: IncomingMessage, upgraded: Socket, head: Buffer) => {
      if (head.length > 0) upgraded.unshift(head);
      resolve({ statusCode: res.statusCode ?? 101, headers: res.headers, conn: upgraded });
    });
    r.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        // The connection was made for this request alone (half-open, so it would linger).
        socket?.destroy();
        reject(new HijackRefusedError(res.statusCode ?? 0, Buffer.concat(chunks).toString()));
      });
      res.on('error', reject);
    });
    r.on('error', reject);
    r.end(body);
  });
}

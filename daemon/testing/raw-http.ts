// HTTP requests written byte by byte on a socket, for what a well-behaved client cannot send:
// oversized headers, a body shorter than its Content-Length, a body that stalls (slowloris).
// The test's own wait is bounded: after `waitMs` the socket is destroyed and the outcome says so.
import { connect, type Socket } from 'node:net';

export type RawTarget = { socketPath: string } | { host: string; port: number };

export interface RawOutcome {
  /** The status of the answer, when one came. */
  status?: number;
  /** The server closed the connection (with or without an answer). */
  closed: boolean;
  /** Neither an answer nor a close came within the wait. */
  timedOut: boolean;
  head: string;
}

export interface RawRequest {
  /** The request line and headers, without the blank line that ends them. */
  head: string;
  /** Written after the head; the connection is then left open (a stalled or truncated body). */
  body?: Buffer | string;
  /** Half-close our side after writing (a client that gave up sending). */
  end?: boolean;
  waitMs: number;
}

function open(target: RawTarget): Socket {
  return 'socketPath' in target ? connect(target.socketPath) : connect(target.port, target.host);
}

export function rawRequest(target: RawTarget, req: RawRequest): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const socket = open(target);
    let received = '';
    let settled = false;
    const finish = (timedOut: boolean, closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(received);
      resolve({
        status: m ? Number(m[1]) : undefined,
        closed,
        timedOut,
        head: received.split('\r\n\r\n')[0],
      });
    };
    const timer = setTimeout(() => finish(true, false), req.waitMs);
    socket.on('connect', () => {
      socket.write(`${req.head}\r\n\r\n`);
      if (req.body !== undefined) socket.write(req.body);
      if (req.end) socket.end();
    });
    socket.on('data', (d: Buffer) => {
      received += d.toString('latin1');
      // The status line and headers are all the outcome needs.
      if (received.includes('\r\n\r\n')) finish(false, false);
    });
    socket.on('error', () => finish(false, true));
    socket.on('close', () => finish(false, true));
  });
}

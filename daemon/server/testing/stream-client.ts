// Test helpers for the hijacked streams of a real svcd: a session whose output is demultiplexed
// (or kept raw for a TTY) as it arrives, with waits on what it has printed.
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { requestHijack } from '../streams/hijack-client';
import { FrameParser, StdStream } from '../streams/stdcopy';

export class StreamSession {
  stdout = '';
  stderr = '';
  readonly ended: Promise<void>;
  private readonly parser = new FrameParser();

  constructor(
    readonly conn: Socket,
    framed: boolean,
  ) {
    conn.on('data', (chunk: Buffer) => {
      if (!framed) {
        this.stdout += chunk.toString();
        return;
      }
      for (const f of this.parser.push(chunk)) {
        if (f.stream === StdStream.stderr) this.stderr += f.payload.toString();
        else this.stdout += f.payload.toString();
      }
    });
    // The server ends its side when the output is over; ours stays open (half-close) until we end it.
    this.ended = new Promise((resolve) => conn.once('end', () => resolve()));
    conn.once('end', () => conn.end());
  }

  /** Waits until stdout contains `text` (5 s at most). */
  async waitFor(text: string, timeoutMs = 10000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.stdout.includes(text)) {
      assert.ok(
        Date.now() < deadline,
        `no ${JSON.stringify(text)} in ${JSON.stringify(this.stdout.slice(-400))}`,
      );
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

export async function openStream(
  /** svcd or a Docker Engine peer. */
  svcd: { socket: string },
  method: string,
  path: string,
  framed: boolean,
  body?: unknown,
): Promise<StreamSession> {
  const res = await requestHijack(
    { socketPath: svcd.socket },
    {
      method,
      path,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    },
  );
  assert.equal(res.statusCode, 101);
  return new StreamSession(res.conn, framed);
}

// Serving an engine stdio session (attach, exec start) over a hijacked connection or a WebSocket:
// output frames (or raw with a TTY) out, stdin through the detach-keys filter in.
import type { Duplex } from 'node:stream';
import { DetachKeysFilter } from './detach-keys';
import { StdStream, type StreamMultiplexer } from './stdcopy';

export type OutputStream = 'stdout' | 'stderr';

/** What the engine hands the HTTP layer: plain output events and a way into stdin. */
export interface StdioSession {
  readonly tty: boolean;
  on(event: 'data', listener: (stream: OutputStream, chunk: Buffer) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  off(event: 'data', listener: (stream: OutputStream, chunk: Buffer) => void): unknown;
  writeStdin(chunk: Buffer): void;
  /** The client closed its stdin (CloseWrite). */
  endStdin(): void;
  /** The detach keys were typed. */
  detach(): void;
  /** The client is gone. */
  close(): void;
}

/**
 * Holds a session's output from the moment it is made until the connection is ready (a log
 * replay, a hijack after the exec started), so nothing printed meanwhile is lost.
 */
export class EarlyOutput {
  private chunks: Array<[OutputStream, Buffer]> | undefined = [];
  ended = false;
  private readonly onData = (stream: OutputStream, chunk: Buffer) => this.chunks?.push([stream, chunk]);

  constructor(readonly session: StdioSession) {
    session.on('data', this.onData);
    session.on('end', () => (this.ended = true));
  }

  /** Hands over what was held and stops holding. */
  release(): Array<[OutputStream, Buffer]> {
    this.session.off('data', this.onData);
    const held = this.chunks ?? [];
    this.chunks = undefined;
    return held;
  }
}

export interface ServeOptions {
  conn: Duplex;
  /** Ends the connection once output is flushed. */
  close: () => void;
  closed: Promise<void>;
  mux: StreamMultiplexer;
  /** Whether the client's bytes are the process's stdin. */
  stdin: boolean;
  detachKeys: Buffer;
}

/** Runs the session until its output ends, the client detaches or the client goes away. */
export async function serveSession(early: EarlyOutput, options: ServeOptions): Promise<void> {
  const { session } = early;
  const { conn, mux } = options;
  const write = (stream: OutputStream, chunk: Buffer) =>
    mux.write(stream === 'stdout' ? StdStream.stdout : StdStream.stderr, chunk);
  session.on('data', write);
  for (const [stream, chunk] of early.release()) write(stream, chunk);
  if (early.ended) options.close();
  else session.on('end', () => options.close());

  if (options.stdin) {
    const filter = new DetachKeysFilter(options.detachKeys);
    filter.on('data', (chunk: Buffer) => session.writeStdin(chunk));
    filter.on('detach', () => {
      session.detach();
      options.close();
    });
    filter.on('end', () => {
      if (!filter.didDetach) session.endStdin();
    });
    conn.pipe(filter);
  } else {
    // Read and drop: a client's CloseWrite must still be seen, and its bytes not pile up.
    conn.resume();
  }
  await options.closed;
  session.off('data', write);
  session.close();
}

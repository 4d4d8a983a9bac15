// Newline-delimited JSON: the progress streams of pull/push/build/load and /events, and the line
// splitting that the json-file log reader shares.
import type { Writable } from 'node:stream';
import type { JsonStreamError } from '../api/image-types';
import { whenDrained } from './when-drained';

const newline = 0x0a;

/**
 * Splits bytes into lines without copying complete lines out of the chunk they arrived in. The
 * callback gets the line without its trailing newline; a line cut across chunks is carried over.
 */
export class LineSplitter {
  private carry: Buffer | undefined;

  /** Feeds a chunk; calls `onLine(buf, start, end)` for each complete line, newline excluded. */
  push(chunk: Buffer, onLine: (buf: Buffer, start: number, end: number) => void): void {
    let buf = chunk;
    let start = 0;
    let nl = buf.indexOf(newline);
    if (this.carry !== undefined) {
      if (nl < 0) {
        this.carry = Buffer.concat([this.carry, chunk]);
        return;
      }
      const head = Buffer.concat([this.carry, chunk.subarray(0, nl)]);
      this.carry = undefined;
      onLine(head, 0, head.length);
      start = nl + 1;
      nl = buf.indexOf(newline, start);
    }
    while (nl >= 0) {
      onLine(buf, start, nl);
      start = nl + 1;
      nl = buf.indexOf(newline, start);
    }
    if (start < buf.length) {
      // Copy: the caller may reuse its read buffer.
      buf = Buffer.from(buf.subarray(start));
      this.carry = buf;
    }
  }

  /** The bytes after the last newline, if any, and forgets them. */
  take(): Buffer | undefined {
    const rest = this.carry;
    this.carry = undefined;
    return rest;
  }

  /** Bytes held back waiting for their newline. */
  get pending(): number {
    return this.carry?.length ?? 0;
  }
}

/** Yields each line of a byte stream (newline excluded), including a last unterminated one. */
export async function* splitLines(source: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer> {
  const splitter = new LineSplitter();
  for await (const chunk of source) {
    const lines: Buffer[] = [];
    splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk, (buf, start, end) =>
      lines.push(buf.subarray(start, end)),
    );
    yield* lines;
  }
  const rest = splitter.take();
  if (rest !== undefined) yield rest;
}

/** Parses a newline-delimited JSON stream; blank lines are skipped, malformed lines throw. */
export async function* readJsonLines<T = unknown>(source: AsyncIterable<Buffer | string>): AsyncGenerator<T> {
  for await (const line of splitLines(source)) {
    const text = line.toString('utf8').trim();
    if (text !== '') yield JSON.parse(text) as T;
  }
}

export function jsonStreamError(message: string, code?: number): JsonStreamError {
  return { error: message, errorDetail: code === undefined ? { message } : { code, message } };
}

/**
 * Writes one JSON value per line. Before the first value `begin` runs (the HTTP layer sends its
 * 200 and headers there); once started, failures can only be reported in the stream, which is what
 * `writeError` is for. Callers that fail before `started` throw instead, so a status is sent.
 */
export class JsonLinesWriter {
  private begun = false;

  constructor(
    private readonly out: Writable,
    private readonly begin?: () => void,
  ) {}

  get started(): boolean {
    return this.begun;
  }

  /** Writes a value; resolves at once unless the destination asks to wait (backpressure). */
  async write(value: unknown): Promise<void> {
    if (!this.begun) {
      this.begun = true;
      this.begin?.();
    }
    if (this.out.destroyed) throw new Error('JSON stream closed by the peer');
    if (!this.out.write(`${JSON.stringify(value)}\n`))
      await whenDrained(this.out, { closedMessage: 'JSON stream closed by the peer' });
  }

  /** Reports an error inside the stream as `{"error", "errorDetail"}`. */
  writeError(err: unknown, code?: number): Promise<void> {
    const message = err instanceof Error ? err.message : String(err);
    return this.write(jsonStreamError(message, code));
  }

  /** Ends the stream, starting it first so an empty stream still answers 200. */
  end(): void {
    if (!this.begun) {
      this.begun = true;
      this.begin?.();
    }
    this.out.end();
  }
}

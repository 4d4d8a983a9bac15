// Appends to an upload file and starts its trip to the disk while the body still streams in: every
// `flushEvery` bytes an fdatasync runs in the thread pool, not awaited. The fsync that commits the
// blob then waits for the last stretch only, not for the whole blob (half a second for 512 MiB on
// a busy disk). A flush that fails fails the stream: the kernel reports a writeback error once,
// so the commit's own fsync, on another descriptor, might not see it.
import type { FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';

export class FlushingAppender extends Writable {
  private written = 0;
  private flushedAt = 0;
  private flushing: Promise<void> | undefined;
  private flushError: Error | undefined;

  constructor(
    private readonly handle: FileHandle,
    private readonly flushEvery: number,
    highWaterMark: number,
  ) {
    super({ highWaterMark });
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (err?: Error | null) => void): void {
    this.append(chunks.map((c) => c.chunk)).then(() => callback(), callback);
  }

  private async append(buffers: Buffer[]): Promise<void> {
    if (this.flushError) throw this.flushError;
    let left = buffers.reduce((n, b) => n + b.length, 0);
    while (left > 0) {
      const { bytesWritten } = await this.handle.writev(buffers);
      this.written += bytesWritten;
      left -= bytesWritten;
      if (left > 0) buffers = remaining(buffers, bytesWritten);
    }
    if (!this.flushing && this.written - this.flushedAt >= this.flushEvery) {
      this.flushedAt = this.written;
      this.flushing = this.handle
        .datasync()
        .catch((err: Error) => void (this.flushError ??= err))
        .finally(() => (this.flushing = undefined));
    }
  }

  override _final(callback: (err?: Error | null) => void): void {
    Promise.resolve(this.flushing).then(() => callback(this.flushError), callback);
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    Promise.resolve(this.flushing)
      .then(() => this.handle.close())
      .then(
        () => callback(err),
        (closeErr: Error) => callback(err ?? closeErr),
      );
  }
}

/** The buffers after the first `skip` bytes (a short writev). */
function remaining(buffers: Buffer[], skip: number): Buffer[] {
  const out: Buffer[] = [];
  for (const b of buffers) {
    if (skip >= b.length) skip -= b.length;
    else {
      out.push(skip ? b.subarray(skip) : b);
      skip = 0;
    }
  }
  return out;
}

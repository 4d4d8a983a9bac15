// The json-file log driver's writing half: each line a container prints becomes
// {"log":"…\n","stream":"stdout","time":"…"} appended to <path>, rotated to <path>.1… by size.
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { JsonFileOptions } from './log-options';
import { formatTimestamp, nowNanos } from './log-time';

export type LogSource = 'stdout' | 'stderr';

/** Docker's copier buffer: a line longer than this is stored as several partial entries. */
export const maxLogLineBytes = 16 * 1024;
// Above this much queued output a producer waits for the disk.
const highWater = 1024 * 1024;

export function rotatedLogPath(path: string, index: number): string {
  return index === 0 ? path : `${path}.${index}`;
}

export interface LogEntry {
  source: LogSource;
  /** The line's bytes without its newline. */
  line: Buffer;
  /** True for a piece of a longer line, or a last line without newline: stored without "\n". */
  partial: boolean;
  time: bigint;
}

export class JsonFileWriter {
  private queue: Buffer[] = [];
  private queuedBytes = 0;
  private writing: Promise<void> | undefined;
  private failure: Error | undefined;
  private closed = false;
  private readonly attrsJson: string;

  private constructor(
    readonly path: string,
    private file: FileHandle,
    private size: number,
    private readonly options: Pick<JsonFileOptions, 'maxSize' | 'maxFile'>,
    attrs: Record<string, string>,
  ) {
    this.attrsJson = Object.keys(attrs).length > 0 ? `"attrs":${JSON.stringify(attrs)},` : '';
  }

  /** Opens (appending to) the log at `path`; the directory must exist. */
  static async open(
    path: string,
    options: Pick<JsonFileOptions, 'maxSize' | 'maxFile'> = { maxFile: 1 },
    attrs: Record<string, string> = {},
  ): Promise<JsonFileWriter> {
    const file = await open(path, 'a', 0o640);
    const { size } = await file.stat();
    return new JsonFileWriter(path, file, size, options, attrs);
  }

  /** Queues one entry; the returned promise resolves when the queue is below its high-water mark. */
  log(entry: LogEntry): Promise<void> {
    if (this.closed) return Promise.reject(new Error('log writer closed'));
    const text = entry.line.toString('utf8') + (entry.partial ? '' : '\n');
    const json = `{"log":${JSON.stringify(text)},"stream":"${entry.source}",${this.attrsJson}"time":"${formatTimestamp(entry.time)}"}\n`;
    const data = Buffer.from(json);
    this.queue.push(data);
    this.queuedBytes += data.length;
    this.writing ??= this.drain();
    return this.queuedBytes > highWater ? this.flush() : Promise.resolve();
  }

  /**
   * Copies a stream (a container's stdout or stderr FIFO) line by line until it ends. Lines longer
   * than 16 KiB are cut into 16 KiB partial entries sharing the first piece's time, as Docker does;
   * bytes left without a newline at the end are written without one.
   */
  async copyFrom(stream: Readable, source: LogSource): Promise<void> {
    let carry: Buffer | undefined;
    let partialTime: bigint | undefined;
    const emit = async (line: Buffer, partial: boolean) => {
      const time = partialTime ?? nowNanos();
      partialTime = partial ? time : undefined;
      await this.log({ source, line, partial, time });
    };
    for await (const chunk of stream) {
      const data: Buffer = carry ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
      carry = undefined;
      let start = 0;
      while (start < data.length) {
        const nl = data.indexOf(0x0a, start);
        const end = nl < 0 ? data.length : nl;
        if (nl >= 0 && end - start < maxLogLineBytes) {
          await emit(data.subarray(start, end), false);
          start = nl + 1;
        } else if (end - start >= maxLogLineBytes) {
          await emit(data.subarray(start, start + maxLogLineBytes), true);
          start += maxLogLineBytes;
        } else {
          carry = Buffer.from(data.subarray(start));
          break;
        }
      }
    }
    if (carry) await emit(carry, true);
  }

  /** Resolves when everything logged so far is in the file. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.failure) throw this.failure;
  }

  /** Flushes and closes the file. Copies still running should have ended first. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.flush();
    } finally {
      await this.file.close();
    }
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const entries = this.queue;
        this.queue = [];
        this.queuedBytes = 0;
        let batch: Buffer[] = [];
        for (const entry of entries) {
          // Checked before each entry, as Docker does: a file may end one entry past max-size.
          if (this.options.maxSize !== undefined && this.size >= this.options.maxSize) {
            await this.write(batch);
            batch = [];
            await this.rotate();
          }
          batch.push(entry);
          this.size += entry.length;
        }
        await this.write(batch);
      }
    } catch (err) {
      this.failure = err as Error;
    } finally {
      this.writing = undefined;
    }
  }

  private async write(batch: Buffer[]): Promise<void> {
    if (batch.length === 0) return;
    const data = batch.length === 1 ? batch[0] : Buffer.concat(batch);
    let off = 0;
    while (off < data.length) off += (await this.file.write(data, off)).bytesWritten;
  }

  /** <path>.N-1 is dropped, each <path>.i becomes .i+1, <path> becomes .1; max-file 1 truncates. */
  private async rotate(): Promise<void> {
    await this.file.close();
    const keep = this.options.maxFile;
    if (keep > 1) {
      await rm(rotatedLogPath(this.path, keep - 1), { force: true });
      for (let i = keep - 2; i >= 0; i--) {
        await rename(rotatedLogPath(this.path, i), rotatedLogPath(this.path, i + 1)).catch(
          (err: NodeJS.ErrnoException) => {
            if (err.code !== 'ENOENT') throw err;
          },
        );
      }
    }
    this.file = await open(this.path, keep > 1 ? 'a' : 'w', 0o640);
    this.size = 0;
  }
}

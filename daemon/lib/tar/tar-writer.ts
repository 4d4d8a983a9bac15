// A streaming tar writer: `add` entries one after another (awaiting each), read the archive from
// `stream`. ustar headers, with a pax header first whenever a field does not fit.
import { PassThrough, type Readable } from 'node:stream';
import {
  BLOCK_SIZE,
  completeHeader,
  encodeHeader,
  encodePax,
  paddingFor,
  paxRecordsFor,
  type TarHeader,
  type TarHeaderInput,
} from './tar-header';
import { whenDrained } from '../when-drained';

const END_OF_ARCHIVE = Buffer.alloc(BLOCK_SIZE * 2);

export class TarWriter {
  /** The archive bytes. */
  readonly stream = new PassThrough();
  private finished = false;

  /** Writes one entry. For files, `body` must yield exactly `size` bytes. */
  async add(
    input: TarHeaderInput,
    body?: Readable | AsyncIterable<Buffer> | Buffer | string,
  ): Promise<TarHeader> {
    if (this.finished) throw new Error('tar writer already finished');
    const data = typeof body === 'string' ? Buffer.from(body) : body;
    const header = completeHeader(
      Buffer.isBuffer(data) && input.size === undefined ? { ...input, size: data.length } : input,
    );
    const storedName =
      header.type === 'directory' && !header.name.endsWith('/') ? `${header.name}/` : header.name;
    const pax = paxRecordsFor(header, storedName);
    if (Object.keys(pax).length > 0) {
      const paxData = encodePax(pax);
      const paxName = `PaxHeaders/${storedName.replace(/\/$/, '').split('/').pop()!.slice(0, 80)}`;
      const paxHeader = completeHeader({ name: paxName, size: paxData.length, mtime: header.mtime });
      await this.write(encodeHeader(paxHeader, paxName, 'x'));
      await this.write(paxData);
      await this.pad(paxData.length);
    }
    await this.write(encodeHeader(header, storedName));
    if (header.type === 'file') await this.writeBody(header, data);
    return header;
  }

  /** Ends the archive with its two zero blocks. */
  async finish(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    await this.write(END_OF_ARCHIVE);
    this.stream.end();
  }

  /** Fails the archive stream (the reader sees the error). */
  abort(err: Error): void {
    this.finished = true;
    this.stream.destroy(err);
  }

  private async writeBody(header: TarHeader, data: Readable | AsyncIterable<Buffer> | Buffer | undefined) {
    let written = 0;
    if (Buffer.isBuffer(data)) {
      written = data.length;
      if (written === header.size) await this.write(data);
    } else if (data) {
      for await (const chunk of data) {
        written += chunk.length;
        if (written > header.size) break;
        await this.write(chunk);
      }
    }
    if (written !== header.size) {
      const err = new Error(`tar entry ${header.name}: body is not ${header.size} bytes long`);
      this.abort(err);
      throw err;
    }
    await this.pad(header.size);
  }

  private async pad(size: number): Promise<void> {
    const padding = paddingFor(size);
    if (padding > 0) await this.write(Buffer.alloc(padding));
  }

  private write(chunk: Buffer): Promise<void> {
    if (this.stream.destroyed) return Promise.reject(new Error('tar stream closed'));
    if (this.stream.write(chunk)) return Promise.resolve();
    return whenDrained(this.stream, { closedMessage: 'tar stream closed' });
  }
}

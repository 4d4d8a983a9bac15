// A streaming tar reader: entries are yielded one at a time with their body as a Readable that
// pulls straight from the source, so no archive (or entry) is ever held in memory whole.
import { Readable } from 'node:stream';
import { InvalidParameterError } from '../../api/errors';
import { ByteReader } from './byte-reader';
import {
  BLOCK_SIZE,
  applyPax,
  decodeHeader,
  isMetaFlag,
  isZeroBlock,
  normaliseName,
  paddingFor,
  parsePax,
  type TarHeader,
} from './tar-header';

export interface TarEntry {
  header: TarHeader;
  /** The entry's data. Read it before asking for the next entry; an unread rest is skipped. */
  body: Readable;
}

const CHUNK = 64 * 1024;

/** Archives come from clients (archive PUT, load, build contexts): a cut one is their error. */
const truncated = () => new InvalidParameterError('unexpected end of tar archive');

class EntryBody extends Readable {
  private wanted = false;
  private pumping = false;
  private current: Promise<void> = Promise.resolve();

  constructor(
    private readonly reader: ByteReader,
    private remaining: number,
  ) {
    super({ highWaterMark: CHUNK });
  }

  override _read(): void {
    this.wanted = true;
    if (this.pumping) return;
    this.pumping = true;
    this.current = this.pump();
  }

  private async pump(): Promise<void> {
    try {
      while (this.wanted && this.remaining > 0 && !this.destroyed) {
        const chunk = await this.reader.readSome(Math.min(this.remaining, CHUNK));
        if (!chunk) throw truncated();
        this.remaining -= chunk.length;
        this.wanted = false;
        if (this.push(chunk)) this.wanted = true;
      }
      if (this.remaining === 0) this.push(null);
    } catch (err) {
      this.destroy(err as Error);
    } finally {
      this.pumping = false;
    }
  }

  /** Skips what the consumer left unread so the reader is positioned at the next header. */
  async finish(): Promise<void> {
    await this.current;
    if (this.remaining > 0) {
      const left = this.remaining;
      this.remaining = 0;
      if ((await this.reader.skip(left)) < left) throw truncated();
      if (!this.readableEnded) this.destroy();
    }
  }
}

function cString(data: Buffer): string {
  const end = data.indexOf(0);
  return data.subarray(0, end === -1 ? data.length : end).toString('utf8');
}

/** Reads a tar archive entry by entry. Breaking out of the loop releases the source. */
export async function* readTar(
  source: AsyncIterable<Buffer | Uint8Array | string>,
): AsyncGenerator<TarEntry> {
  const reader = new ByteReader(source);
  let globalPax: Record<string, string> = {};
  let pax: Record<string, string> = {};
  let longName: string | undefined;
  let longLink: string | undefined;
  try {
    for (;;) {
      const block = await reader.readExactly(BLOCK_SIZE);
      if (block.length === 0) return;
      if (block.length < BLOCK_SIZE) throw truncated();
      if (isZeroBlock(block)) {
        // End of archive; drain trailing record padding so a network source ends cleanly.
        while (await reader.readSome(CHUNK));
        return;
      }
      const { flag, header: raw } = decodeHeader(block);
      if (isMetaFlag(flag)) {
        const data = await reader.readExactly(raw.size);
        if (data.length < raw.size) throw truncated();
        await reader.skip(paddingFor(raw.size));
        if (flag === 'x') pax = { ...pax, ...parsePax(data) };
        else if (flag === 'g') globalPax = { ...globalPax, ...parsePax(data) };
        else if (flag === 'L') longName = cString(data);
        else longLink = cString(data);
        continue;
      }
      let header = raw;
      if (longName !== undefined) header = { ...header, name: longName };
      if (longLink !== undefined) header = { ...header, linkname: longLink };
      header = normaliseName(applyPax(header, { ...globalPax, ...pax }));
      if (header.type !== 'file') header = { ...header, size: 0 };
      pax = {};
      longName = longLink = undefined;
      const body = new EntryBody(reader, header.size);
      yield { header, body };
      await body.finish();
      await reader.skip(paddingFor(header.size));
    }
  } finally {
    await reader.close();
  }
}

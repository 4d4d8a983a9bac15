// Pulls exact byte counts out of a chunked async source without holding more than one chunk.

export class ByteReader {
  private readonly iterator: AsyncIterator<Buffer | Uint8Array | string>;
  private pending: Buffer = Buffer.alloc(0);
  private done = false;

  constructor(source: AsyncIterable<Buffer | Uint8Array | string>) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  private async fill(): Promise<boolean> {
    while (this.pending.length === 0 && !this.done) {
      const next = await this.iterator.next();
      if (next.done) this.done = true;
      else this.pending = toBuffer(next.value);
    }
    return this.pending.length > 0;
  }

  /** Up to `max` bytes (at least one), or null at the end of the source. */
  async readSome(max: number): Promise<Buffer | null> {
    if (!(await this.fill())) return null;
    const take = Math.min(max, this.pending.length);
    const out = this.pending.subarray(0, take);
    this.pending = this.pending.subarray(take);
    return out;
  }

  /** Exactly `n` bytes; fewer only when the source ends first. */
  async readExactly(n: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    let got = 0;
    while (got < n) {
      const part = await this.readSome(n - got);
      if (!part) break;
      parts.push(part);
      got += part.length;
    }
    return parts.length === 1 ? parts[0] : Buffer.concat(parts, got);
  }

  async skip(n: number): Promise<number> {
    let left = n;
    while (left > 0) {
      const part = await this.readSome(left);
      if (!part) break;
      left -= part.length;
    }
    return n - left;
  }

  /** Releases the source (stops a stream we will not read further). */
  async close(): Promise<void> {
    await this.iterator.return?.();
  }
}

function toBuffer(value: Buffer | Uint8Array | string): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (typeof value === 'string') return Buffer.from(value);
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

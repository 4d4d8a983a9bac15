// Just enough tar for the file browser: read entry headers as a stream arrives (ustar, GNU and
// PAX long names), never keeping file contents; and take the one file out of a single-file archive.

export interface TarEntry {
  name: string;
  size: number;
  mode: number;
  mtime: number;
  type: 'file' | 'dir' | 'symlink' | 'other';
  linkTarget: string;
}

const dec = new TextDecoder();
const str = (b: Uint8Array, off: number, len: number) =>
  dec.decode(b.subarray(off, off + len)).replace(/\0.*$/s, '');
const oct = (b: Uint8Array, off: number, len: number) => parseInt(str(b, off, len).trim() || '0', 8);

/** Feeds bytes, calls onEntry for each header; contents are skipped, never kept. */
export function tarReader(onEntry: (e: TarEntry) => void): (chunk: Uint8Array) => void {
  let buf = new Uint8Array(0);
  let skip = 0;
  let longName: string | undefined;
  let dataFor: 'longname' | 'pax' | undefined;
  let dataLeft = 0;
  let data: number[] = [];
  return (chunk) => {
    const joined = new Uint8Array(buf.length + chunk.length);
    joined.set(buf);
    joined.set(chunk, buf.length);
    let off = 0;
    for (;;) {
      if (skip > 0) {
        const n = Math.min(skip, joined.length - off);
        if (dataFor) for (let i = 0; i < n && dataLeft > 0; i++, dataLeft--) data.push(joined[off + i]);
        off += n;
        skip -= n;
        if (skip > 0) break;
        if (dataFor === 'longname') longName = dec.decode(new Uint8Array(data)).replace(/\0.*$/s, '');
        if (dataFor === 'pax')
          longName = /\d+ path=([^\n]*)\n/.exec(dec.decode(new Uint8Array(data)))?.[1] ?? longName;
        dataFor = undefined;
        data = [];
      }
      if (joined.length - off < 512) break;
      const h = joined.subarray(off, off + 512);
      off += 512;
      if (h.every((x) => x === 0)) continue;
      const size = oct(h, 124, 12);
      const flag = String.fromCharCode(h[156] || 48);
      skip = Math.ceil(size / 512) * 512;
      if (flag === 'L' || flag === 'x') {
        dataFor = flag === 'L' ? 'longname' : 'pax';
        dataLeft = size;
        continue;
      }
      const prefix = str(h, 345, 155);
      const name = longName ?? (prefix ? `${prefix}/${str(h, 0, 100)}` : str(h, 0, 100));
      longName = undefined;
      onEntry({
        name,
        size,
        mode: oct(h, 100, 8),
        mtime: oct(h, 136, 12),
        type:
          flag === '5' ? 'dir' : flag === '2' ? 'symlink' : flag === '0' || flag === '7' ? 'file' : 'other',
        linkTarget: str(h, 157, 100),
      });
    }
    buf = joined.slice(off);
  };
}

/** The contents of the first regular file in a whole archive (a file downloaded through the archive API). */
export function firstFileOf(tar: Uint8Array): Uint8Array | undefined {
  for (let off = 0; off + 512 <= tar.length;) {
    const h = tar.subarray(off, off + 512);
    if (h.every((x) => x === 0)) return undefined;
    const size = oct(h, 124, 12);
    const flag = String.fromCharCode(h[156] || 48);
    if (flag === '0' || flag === '7') return tar.subarray(off + 512, off + 512 + size);
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

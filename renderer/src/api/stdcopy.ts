// Demultiplexes the engine's stdout/stderr frames (8-byte header: stream, 0, 0, 0, size BE32)
// of a non-TTY logs or attach stream. A TTY container's stream is raw and passes as is.

export interface Chunk {
  stream: 'stdout' | 'stderr' | 'raw';
  data: Uint8Array;
}

export function demuxer(tty: boolean): (input: Uint8Array) => Chunk[] {
  if (tty) return (input) => [{ stream: 'raw', data: input }];
  let pending = new Uint8Array(0);
  return (input) => {
    const buf = new Uint8Array(pending.length + input.length);
    buf.set(pending);
    buf.set(input, pending.length);
    const out: Chunk[] = [];
    let off = 0;
    while (buf.length - off >= 8) {
      const size = new DataView(buf.buffer, buf.byteOffset + off + 4, 4).getUint32(0);
      if (buf.length - off - 8 < size) break;
      out.push({ stream: buf[off] === 2 ? 'stderr' : 'stdout', data: buf.subarray(off + 8, off + 8 + size) });
      off += 8 + size;
    }
    pending = buf.slice(off);
    return out;
  };
}

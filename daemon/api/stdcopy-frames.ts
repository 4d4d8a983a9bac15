// The framing of attach, exec and logs streams without a TTY: each payload behind an 8-byte
// header [stream type, 0, 0, 0, uint32 big-endian size]. A wire fact both ends read (the daemon's
// streams and the renderer's log view), so one parser, on plain bytes, that runs in either.
export const StdStream = { stdin: 0, stdout: 1, stderr: 2, systemErr: 3 } as const;
export type StdStreamType = (typeof StdStream)[keyof typeof StdStream];

export const frameHeaderSize = 8;

export interface Frame {
  stream: StdStreamType;
  payload: Uint8Array;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Incremental frame parser: push bytes in any cut, get whole frames out. */
export class FrameParser {
  private buffered: Uint8Array = new Uint8Array(0);

  push(chunk: Uint8Array): Frame[] {
    this.buffered = this.buffered.length === 0 ? chunk : concat(this.buffered, chunk);
    const view = new DataView(this.buffered.buffer, this.buffered.byteOffset, this.buffered.length);
    const frames: Frame[] = [];
    let off = 0;
    while (this.buffered.length - off >= frameHeaderSize) {
      const type = this.buffered[off];
      if (type > StdStream.systemErr)
        throw new Error(`unrecognized stream type ${type} in multiplexed stream`);
      const end = off + frameHeaderSize + view.getUint32(off + 4);
      if (this.buffered.length < end) break;
      frames.push({
        stream: type as StdStreamType,
        payload: this.buffered.subarray(off + frameHeaderSize, end),
      });
      off = end;
    }
    this.buffered = this.buffered.subarray(off);
    return frames;
  }

  /** Bytes of an incomplete frame still held. */
  get pending(): number {
    return this.buffered.length;
  }
}

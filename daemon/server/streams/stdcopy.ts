// The multiplexed stream of attach, exec and logs without a TTY: each payload behind an 8-byte
// header [stream type, 0, 0, 0, uint32 big-endian size]. With a TTY the same writers pass bytes raw.
import { Writable } from 'node:stream';
import {
  FrameParser as BytesFrameParser,
  frameHeaderSize,
  type StdStreamType,
} from '../../api/stdcopy-frames';
import { whenDrained } from '../../lib/when-drained';

export { frameHeaderSize, StdStream, type StdStreamType } from '../../api/stdcopy-frames';
const maxPayload = 0xffffffff;

export function frameHeader(type: StdStreamType, size: number): Buffer {
  const header = Buffer.alloc(frameHeaderSize);
  header[0] = type;
  header.writeUInt32BE(size, 4);
  return header;
}

/** One frame as a single buffer: header and payload. */
export function encodeFrame(type: StdStreamType, payload: Buffer | string): Buffer {
  const data = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const frame = Buffer.allocUnsafe(frameHeaderSize + data.length);
  frame.fill(0, 0, frameHeaderSize);
  frame[0] = type;
  frame.writeUInt32BE(data.length, 4);
  data.copy(frame, frameHeaderSize);
  return frame;
}

/**
 * Writes frames (or raw bytes) of several streams onto one destination. Writes made within one
 * turn of the event loop leave as a single writev: 200,000 log lines must not be 200,000 syscalls.
 */
export class StreamMultiplexer {
  private corked = false;

  constructor(
    readonly out: Writable,
    /** false with a TTY: payloads go out raw, as Docker does. */
    readonly framed: boolean,
  ) {}

  /** Queues one payload; false when the destination wants the caller to wait for 'drain'. */
  write(type: StdStreamType, payload: Buffer | string): boolean {
    const data = typeof payload === 'string' ? Buffer.from(payload) : payload;
    if (data.length === 0 || this.out.destroyed || this.out.writableEnded) return true;
    if (!this.corked) {
      this.corked = true;
      this.out.cork();
      setImmediate(() => {
        this.corked = false;
        this.out.uncork();
      });
    }
    if (!this.framed) return this.out.write(data);
    let ok = true;
    for (let off = 0; off < data.length; off += maxPayload) {
      const part = data.subarray(off, off + maxPayload);
      ok = this.out.write(frameHeader(type, part.length)) && ok;
      ok = this.out.write(part) && ok;
    }
    return ok;
  }

  /** Resolves when the destination can take more (at once if it can), or once it is gone. */
  drained(): Promise<void> {
    return whenDrained(this.out);
  }

  /**
   * A Writable for one stream. Ending it does not end the shared destination; once the destination
   * is gone further writes are dropped, not errors: a client leaving ends its session quietly.
   */
  stream(type: StdStreamType): Writable {
    return new Writable({
      write: (chunk: Buffer, _enc, cb) => {
        if (this.write(type, chunk)) cb();
        else void whenDrained(this.out).then(() => cb());
      },
    });
  }
}

export interface Frame {
  stream: StdStreamType;
  payload: Buffer;
}

/** daemon/api's parser, with each payload a Buffer over the same bytes (no copy). */
export class FrameParser {
  private readonly bytes = new BytesFrameParser();

  push(chunk: Buffer): Frame[] {
    return this.bytes.push(chunk).map(({ stream, payload }) => ({
      stream,
      payload: Buffer.from(payload.buffer, payload.byteOffset, payload.length),
    }));
  }

  /** Bytes of an incomplete frame still held. */
  get pending(): number {
    return this.bytes.pending;
  }
}

/** Demultiplexes a framed byte stream; a truncated last frame is an error, as in Docker's StdCopy. */
export async function* demuxFrames(source: AsyncIterable<Buffer>): AsyncGenerator<Frame> {
  const parser = new FrameParser();
  for await (const chunk of source) yield* parser.push(chunk);
  if (parser.pending > 0)
    throw new Error(`multiplexed stream ended inside a frame (${parser.pending} bytes left)`);
}

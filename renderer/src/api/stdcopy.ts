// Demultiplexes the engine's stdout/stderr frames of a non-TTY logs or attach stream with
// daemon/api's parser, and reads a logs response as text per stream. A TTY container's stream is
// raw and passes as is.
import { FrameParser, StdStream } from '../../../daemon/api/stdcopy-frames';

export interface Chunk {
  stream: 'stdout' | 'stderr' | 'raw';
  data: Uint8Array;
}

export function demuxer(tty: boolean): (input: Uint8Array) => Chunk[] {
  if (tty) return (input) => [{ stream: 'raw', data: input }];
  const parser = new FrameParser();
  return (input) =>
    parser.push(input).map((f) => ({
      stream: f.stream === StdStream.stderr ? 'stderr' : 'stdout',
      data: f.payload,
    }));
}

export type Stream = 'stdout' | 'stderr';

/** Each chunk's text with the stream it came on (a TTY has one stream, shown as stdout). */
export async function readChunks(
  res: Response,
  tty: boolean,
  onText: (stream: Stream, text: string) => void,
): Promise<void> {
  const demux = demuxer(tty);
  const decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
  const reader = res.body!.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    for (const c of demux(value)) {
      const stream = c.stream === 'stderr' ? 'stderr' : 'stdout';
      onText(stream, decoders[stream].decode(c.data, { stream: true }));
    }
  }
}

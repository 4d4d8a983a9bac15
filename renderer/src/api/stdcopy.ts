// Demultiplexes the engine's stdout/stderr frames of a non-TTY logs or attach stream with
// daemon/api's parser. A TTY container's stream is raw and passes as is.
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

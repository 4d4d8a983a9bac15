// A batch of log messages as the bytes of the logs stream: one buffer per batch, each message in
// its frame (or raw with a TTY), so 200,000 lines are a few hundred writes, not 400,000.
import type { LogLine } from '../../api/container-stream-types';
import { frameHeaderSize, StdStream } from './stdcopy';

export function encodeLogBatch(batch: LogLine[], framed: boolean): Buffer {
  const texts = batch.map((m) => m.line);
  let size = 0;
  for (const t of texts) size += Buffer.byteLength(t) + (framed ? frameHeaderSize : 0);
  const out = Buffer.allocUnsafe(size);
  let off = 0;
  for (let i = 0; i < texts.length; i++) {
    if (framed) {
      const len = Buffer.byteLength(texts[i]);
      out[off] = batch[i].source === 'stdout' ? StdStream.stdout : StdStream.stderr;
      out[off + 1] = 0;
      out[off + 2] = 0;
      out[off + 3] = 0;
      out.writeUInt32BE(len, off + 4);
      off += frameHeaderSize;
    }
    off += out.write(texts[i], off);
  }
  return out;
}

// Recognising compressed archives by their magic bytes and decompressing them as streams:
// gzip with zlib, bzip2 / xz / zstd with their command-line programs when installed.
import { spawn } from 'node:child_process';
import { PassThrough, Readable, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { InvalidParameterError, NotImplementedError } from '../../api/errors';

export type Compression = 'none' | 'gzip' | 'bzip2' | 'xz' | 'zstd';

const magics: [Compression, number[]][] = [
  ['gzip', [0x1f, 0x8b, 0x08]],
  ['bzip2', [0x42, 0x5a, 0x68]],
  ['xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ['zstd', [0x28, 0xb5, 0x2f, 0xfd]],
];

export const MAGIC_LENGTH = 6;

export function detectCompression(head: Uint8Array): Compression {
  for (const [kind, magic] of magics) {
    if (head.length >= magic.length && magic.every((byte, i) => head[i] === byte)) return kind;
  }
  return 'none';
}

/** Reads the first bytes of `source` and returns a stream that replays them followed by the rest. */
export async function peek(
  source: AsyncIterable<Buffer>,
  length: number,
): Promise<{ head: Buffer; stream: Readable }> {
  const iterator = source[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let got = 0;
  let ended = false;
  while (got < length) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    chunks.push(next.value);
    got += next.value.length;
  }
  const head = Buffer.concat(chunks);
  async function* replay() {
    if (head.length > 0) yield head;
    if (ended) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { head, stream: Readable.from(replay(), { objectMode: false }) };
}

const programs: Record<Exclude<Compression, 'none' | 'gzip'>, string> = {
  bzip2: 'bzip2',
  xz: 'xz',
  zstd: 'zstd',
};

function decompressWith(program: string, input: Readable): Readable {
  const child = spawn(program, ['-dc'], { stdio: ['pipe', 'pipe', 'pipe'] });
  // Ends only once the program has exited cleanly, so truncated or corrupt input is an error.
  const out = new PassThrough();
  child.stdout.pipe(out, { end: false });
  out.on('close', () => {
    if (child.exitCode === null) child.kill();
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d.slice(0, 4096)));
  child.on('error', (err: NodeJS.ErrnoException) => {
    out.destroy(
      err.code === 'ENOENT'
        ? new NotImplementedError(
            `${program} decompression needs the ${program} program, which is not installed`,
          )
        : err,
    );
  });
  child.on('close', (code) => {
    if (code === 0) out.end();
    else out.destroy(new InvalidParameterError(`${program}: ${stderr.trim() || `exited with code ${code}`}`));
  });
  pipeline(input, child.stdin, (err) => {
    if (err && (err as NodeJS.ErrnoException).code !== 'EPIPE') out.destroy(err);
  });
  return out;
}

/** Detects the compression of `source` and returns its decompressed bytes. */
export async function decompress(
  source: AsyncIterable<Buffer>,
): Promise<{ compression: Compression; stream: Readable }> {
  const { head, stream } = await peek(source, MAGIC_LENGTH);
  const compression = detectCompression(head);
  if (compression === 'none') return { compression, stream };
  if (compression === 'gzip') {
    // zlib's default 16 KiB output chunks cost twice the time of 256 KiB ones on a layer.
    const gunzip = createGunzip({ chunkSize: 256 * 1024 });
    pipeline(stream, gunzip, () => {});
    return { compression, stream: gunzip };
  }
  return { compression, stream: decompressWith(programs[compression], stream) };
}

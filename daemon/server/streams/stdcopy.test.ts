import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import { demuxFrames, encodeFrame, FrameParser, StdStream, StreamMultiplexer } from './stdcopy';

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe('stdcopy frames', () => {
  test('a frame is type, three zero bytes, big-endian size, payload', () => {
    const frame = encodeFrame(StdStream.stderr, 'hello');
    assert.deepEqual([...frame.subarray(0, 8)], [2, 0, 0, 0, 0, 0, 0, 5]);
    assert.equal(frame.subarray(8).toString(), 'hello');
    const big = encodeFrame(StdStream.stdout, Buffer.alloc(70000, 0x61));
    assert.equal(big.readUInt32BE(4), 70000);
  });

  test('frames round trip through the parser whatever the cut', () => {
    const input = Buffer.concat([
      encodeFrame(StdStream.stdout, 'out 1\n'),
      encodeFrame(StdStream.stderr, 'err 1\n'),
      encodeFrame(StdStream.stdin, 'in'),
      encodeFrame(StdStream.systemErr, 'boom'),
      encodeFrame(StdStream.stdout, Buffer.alloc(0)),
    ]);
    for (let cut = 1; cut <= input.length; cut++) {
      const parser = new FrameParser();
      const got: string[] = [];
      for (let off = 0; off < input.length; off += cut) {
        for (const f of parser.push(input.subarray(off, off + cut)))
          got.push(`${f.stream}:${f.payload.toString()}`);
      }
      assert.deepEqual(got, ['1:out 1\n', '2:err 1\n', '0:in', '3:boom', '1:'], `cut ${cut}`);
      assert.equal(parser.pending, 0);
    }
  });

  test('an unknown stream type and a truncated frame are errors', async () => {
    assert.throws(
      () => new FrameParser().push(Buffer.from([9, 0, 0, 0, 0, 0, 0, 1, 0x41])),
      /unrecognized stream type 9/,
    );
    const truncated = encodeFrame(StdStream.stdout, 'abcdef').subarray(0, 10);
    await assert.rejects(async () => {
      for await (const _ of demuxFrames(Readable.from([truncated]))) void _;
    }, /ended inside a frame/);
  });

  // Each stream keeps its order; across streams order is not promised (nor is it by a process).
  test('the multiplexer frames each stream and demuxes back in order', async () => {
    const out = new PassThrough();
    const mux = new StreamMultiplexer(out, true);
    const stdout = mux.stream(StdStream.stdout);
    const stderr = mux.stream(StdStream.stderr);
    for (let i = 0; i < 1000; i++) (i % 3 === 0 ? stderr : stdout).write(`line ${i}\n`);
    stdout.end();
    stderr.end();
    Promise.all([once(stdout, 'finish'), once(stderr, 'finish')]).then(() => out.end(), assert.fail);
    const frames: string[] = [];
    for await (const f of demuxFrames(out)) frames.push(`${f.stream}:${f.payload.toString()}`);
    const expected = Array.from({ length: 1000 }, (_, i) => `${i % 3 === 0 ? 2 : 1}:line ${i}\n`);
    for (const type of ['1:', '2:']) {
      const only = (list: string[]) => list.filter((f) => f.startsWith(type));
      assert.deepEqual(only(frames), only(expected));
    }
    assert.equal(frames.length, 1000);
  });

  test('a stream writer drops output quietly once the destination is gone', async () => {
    const out = new PassThrough({ highWaterMark: 16 });
    const stdout = new StreamMultiplexer(out, true).stream(StdStream.stdout);
    stdout.write('x'.repeat(100));
    stdout.write('more');
    out.destroy();
    stdout.end('last');
    await once(stdout, 'finish');
    assert.equal(stdout.errored, null);
  });

  test('drained() waits while the destination is full and resolves when it empties or closes', async () => {
    const out = new PassThrough({ highWaterMark: 64 });
    const mux = new StreamMultiplexer(out, true);
    await mux.drained();
    while (mux.write(StdStream.stdout, 'x'.repeat(32)));
    let resolved = false;
    const waiting = mux.drained().then(() => (resolved = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(resolved, false);
    out.resume();
    await waiting;
    out.pause();
    while (mux.write(StdStream.stdout, 'y'.repeat(32)));
    const closing = mux.drained();
    out.destroy();
    await closing;
  });

  test('without framing (a TTY) bytes pass raw and empty writes send nothing', async () => {
    const out = new PassThrough();
    const mux = new StreamMultiplexer(out, false);
    mux.write(StdStream.stdout, 'ab');
    mux.write(StdStream.stderr, '');
    mux.write(StdStream.stderr, 'cd');
    await new Promise<void>((r) => setImmediate(r));
    out.end();
    assert.equal((await collect(out)).toString(), 'abcd');
  });

  test('writes within one turn leave as one batch', async () => {
    const sizes: number[] = [];
    const { Writable } = await import('node:stream');
    const sink = new Writable({
      writev(chunks, cb) {
        sizes.push(chunks.length);
        cb();
      },
      write(_c, _e, cb) {
        sizes.push(1);
        cb();
      },
    });
    const mux = new StreamMultiplexer(sink, true);
    for (let i = 0; i < 100; i++) mux.write(StdStream.stdout, `l${i}\n`);
    await new Promise<void>((r) => setImmediate(r));
    assert.deepEqual(sizes, [200]);
  });
});

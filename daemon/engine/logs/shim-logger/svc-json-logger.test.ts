// The shim's logging binary, run as containerd's shim runs it (stdout and stderr as fds 3 and 4,
// readiness on fd 5): the same file as svcd's JsonFileWriter for the same output, rotation,
// nothing lost when the shim stops it, and a full disk survived.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { JsonFileWriter, maxLogLineBytes } from '../json-file-writer';
import { shimLoggerBinary, writeShimLogConfig } from '../shim-log';

interface Entry {
  log: string;
  stream: string;
  time: string;
  attrs?: Record<string, string>;
}

function parse(text: string): Entry[] {
  assert.ok(text === '' || text.endsWith('\n'), 'every entry ends with a newline');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Entry);
}

interface Logger {
  child: ChildProcess;
  out: Writable;
  err: Writable;
  exited: Promise<number | null>;
}

/** Starts the logger as the shim does and resolves once it said it is ready (closed fd 5). */
async function startLogger(configPath: string): Promise<Logger> {
  const binary = shimLoggerBinary();
  assert.ok(binary, 'build/native/svc-json-logger is built by npm run build:node');
  const child = spawn(binary, ['config', configPath], {
    stdio: ['ignore', 'inherit', 'inherit', 'pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const [, , , out, err, ready] = child.stdio as unknown as [null, null, null, Writable, Writable, Readable];
  ready.resume();
  await new Promise((resolve) => ready.once('close', resolve));
  return { child, out, err, exited };
}

function write(stream: Writable, data: Buffer | string): Promise<void> {
  return new Promise((resolve, reject) => stream.write(data, (e) => (e ? reject(e) : resolve())));
}

/** Closes the pipes, then SIGTERM, as the shim's delete does; resolves with the exit code. */
async function stopLogger(logger: Logger): Promise<number | null> {
  logger.out.end();
  logger.err.end();
  logger.child.kill('SIGTERM');
  return logger.exited;
}

const withoutTime = (e: Entry) => ({ ...e, time: undefined });

describe('shim logging binary (svc-json-logger)', () => {
  let dir: string;
  let n = 0;
  const paths = () => {
    n++;
    return { log: join(dir, `c${n}-json.log`), config: join(dir, `c${n}.conf`) };
  };
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-shimlog-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('writes the same entries as svcd for the same output: escapes, bad UTF-8, long and partial lines', async () => {
    const long = 'x'.repeat(maxLogLineBytes * 2 + 100);
    const stdout = Buffer.concat([
      Buffer.from('plain\n\nquote " backslash \\ tab \t cr \r bell \x07 del \x7f\n'),
      Buffer.from([0xc3, 0xa9, 0x20, 0xe2, 0x82, 0xac, 0x20, 0xf0, 0x9f, 0x98, 0x80, 0x0a]), // é € 😀
      Buffer.from([0xff, 0x41, 0xe2, 0x82, 0x41, 0xed, 0xa0, 0x80, 0xf4, 0x90, 0x80, 0x80, 0xc0, 0xaf, 0x0a]),
      Buffer.from(`${'a'.repeat(maxLogLineBytes - 1)}\n${'b'.repeat(maxLogLineBytes)}\n${long}\n`),
      Buffer.from('no newline at the end'),
    ]);
    const stderr = Buffer.from('err one\nerr two\n');
    const attrs = { tag: 'web/1', 'com.example': 'a "b"' };

    const ours = paths();
    await writeShimLogConfig(ours.config, ours.log, { maxFile: 1 }, attrs);
    const logger = await startLogger(ours.config);
    // Written in odd-sized pieces, as a process's writes reach a pipe.
    for (let i = 0; i < stdout.length; i += 7001) await write(logger.out, stdout.subarray(i, i + 7001));
    await write(logger.err, stderr);
    assert.equal(await stopLogger(logger), 0);

    const svcd = paths();
    const writer = await JsonFileWriter.open(svcd.log, { maxFile: 1 }, attrs);
    const out = new PassThrough();
    const err = new PassThrough();
    const copies = [writer.copyFrom(out, 'stdout'), writer.copyFrom(err, 'stderr')];
    for (let i = 0; i < stdout.length; i += 7001) out.write(stdout.subarray(i, i + 7001));
    out.end();
    err.end(stderr);
    await Promise.all(copies);
    await writer.close();

    const got = parse(await readFile(ours.log, 'utf8'));
    const want = parse(await readFile(svcd.log, 'utf8'));
    for (const stream of ['stdout', 'stderr']) {
      assert.deepEqual(
        got.filter((e) => e.stream === stream).map(withoutTime),
        want.filter((e) => e.stream === stream).map(withoutTime),
      );
    }
    // The raw text too (key order, escapes), the time aside.
    const raw = (text: string) =>
      text
        .split('\n')
        .map((l) => l.replace(/"time":"[^"]*"/, ''))
        .filter((l) => l.includes('"stream":"stdout"'));
    assert.deepEqual(raw(await readFile(ours.log, 'utf8')), raw(await readFile(svcd.log, 'utf8')));

    for (const e of got) assert.match(e.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/);
    const pieces = got.filter((e) => e.log.startsWith('xxx'));
    assert.equal(pieces.length, 3);
    assert.ok(
      pieces.every((p) => p.time === pieces[0].time),
      'the pieces of a long line share its time',
    );
  });

  test('rotates by max-size, keeping max-file files, and never splits an entry', async () => {
    const { log, config } = paths();
    await writeShimLogConfig(config, log, { maxSize: 2000, maxFile: 3 }, {});
    const logger = await startLogger(config);
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i} ${'.'.repeat(i % 50)}`);
    await write(logger.out, lines.map((l) => `${l}\n`).join(''));
    assert.equal(await stopLogger(logger), 0);

    const names = (await readdir(dir)).filter((f) => f.startsWith(`c${n}-json.log`)).sort();
    assert.deepEqual(names, [`c${n}-json.log`, `c${n}-json.log.1`, `c${n}-json.log.2`]);
    const kept: string[] = [];
    for (const suffix of ['.2', '.1', '']) {
      const text = await readFile(log + suffix, 'utf8');
      const entries = parse(text);
      if (suffix !== '') {
        // Rotated once it reached max-size: the file is at least that, and less before its last entry.
        const last = Buffer.byteLength(JSON.stringify(entries.at(-1)) + '\n');
        assert.ok(Buffer.byteLength(text) >= 2000 && Buffer.byteLength(text) - last < 2000);
      }
      kept.push(...entries.map((e) => e.log));
    }
    assert.deepEqual(
      kept,
      lines.slice(-kept.length).map((l) => `${l}\n`),
    );
  });

  test('output still in the pipes when the shim stops it is written', async () => {
    const { log, config } = paths();
    await writeShimLogConfig(config, log, { maxFile: 1 }, {});
    const logger = await startLogger(config);
    logger.child.kill('SIGSTOP'); // not reading: everything below waits in the pipes
    const lines = Array.from({ length: 500 }, (_, i) => `kept ${i}\n`).join('');
    const written = write(logger.out, lines);
    logger.out.end();
    logger.err.end();
    logger.child.kill('SIGTERM');
    logger.child.kill('SIGCONT');
    await written;
    assert.equal(await logger.exited, 0);
    const entries = parse(await readFile(log, 'utf8'));
    assert.equal(entries.length, 500);
    assert.equal(entries.at(-1)?.log, 'kept 499\n');
  });

  test('a full disk costs the lines that did not fit, not the logger: the pipes stay drained', async (t) => {
    const mnt = join(dir, 'small');
    execFileSync('mkdir', [mnt]);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mnt]);
    } catch {
      t.skip('cannot mount a tmpfs (needs root)');
      return;
    }
    try {
      const log = join(mnt, 'c-json.log');
      const config = join(dir, 'full.conf');
      await writeShimLogConfig(config, log, { maxFile: 1 }, {});
      const filler = join(mnt, 'filler');
      // Room for a few entries only. Once it is removed, the room is far more than what can still
      // be waiting in the socket pair Node gives as fd 3 (some 100s of KiB), so the last line fits.
      await writeFile(filler, Buffer.alloc(4 * 1024 * 1024 - 8192));
      const logger = await startLogger(config);
      // Far more than the disk and the pipe hold: only a logger that keeps reading lets this end.
      const lost = Array.from({ length: 20000 }, (_, i) => `lost ${i} ${'x'.repeat(100)}\n`).join('');
      await write(logger.out, lost);
      await rm(filler);
      await write(logger.out, 'after the disk had room again\n');
      assert.equal(await stopLogger(logger), 0);
      const entries = parse(await readFile(log, 'utf8'));
      assert.equal(entries.at(-1)?.log, 'after the disk had room again\n');
      assert.ok(entries.length < 20001, 'the lines that did not fit are gone');
    } finally {
      execFileSync('umount', [mnt]);
    }
  });
});

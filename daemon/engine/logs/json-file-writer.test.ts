import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { JsonFileWriter, maxLogLineBytes } from './json-file-writer';
import { nowNanos } from './log-time';

interface Entry {
  log: string;
  stream: string;
  time: string;
  attrs?: Record<string, string>;
}

async function entries(path: string): Promise<Entry[]> {
  const text = await readFile(path, 'utf8');
  assert.ok(text === '' || text.endsWith('\n'), 'every entry ends with a newline');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Entry);
}

describe('json-file writer', () => {
  let dir: string;
  let n = 0;
  const logPath = () => join(dir, `c${++n}-json.log`);
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-logs-w-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('writes each line of stdout and stderr with its stream and a nanosecond UTC time', async () => {
    const path = logPath();
    const writer = await JsonFileWriter.open(path);
    const out = new PassThrough();
    const err = new PassThrough();
    const copies = [writer.copyFrom(out, 'stdout'), writer.copyFrom(err, 'stderr')];
    const before = Date.now();
    out.write('hel');
    out.write('lo\nwor');
    out.end('ld\n');
    err.end('oops "quoted" \\ é\n');
    await Promise.all(copies);
    await writer.close();
    const got = await entries(path);
    assert.deepEqual(got.map((e) => [e.stream, e.log]).sort(), [
      ['stderr', 'oops "quoted" \\ é\n'],
      ['stdout', 'hello\n'],
      ['stdout', 'world\n'],
    ]);
    for (const e of got) {
      assert.match(e.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/);
      assert.ok(Math.abs(Date.parse(e.time) - before) < 5000);
    }
    assert.deepEqual(Object.keys(got[0]), ['log', 'stream', 'time']);
  });

  test('long lines are cut in 16 KiB partials sharing one time; a last line keeps no newline', async () => {
    const path = logPath();
    const writer = await JsonFileWriter.open(path);
    const long = 'x'.repeat(maxLogLineBytes * 2 + 100);
    const exact = 'y'.repeat(maxLogLineBytes);
    await writer.copyFrom(Readable.from([Buffer.from(`${long}\n${exact}\nshort\nno newline`)]), 'stdout');
    await writer.close();
    const got = await entries(path);
    assert.deepEqual(
      got.map((e) => e.log),
      [
        'x'.repeat(maxLogLineBytes),
        'x'.repeat(maxLogLineBytes),
        'x'.repeat(100) + '\n',
        exact,
        '\n',
        'short\n',
        'no newline',
      ],
    );
    assert.equal(new Set(got.slice(0, 3).map((e) => e.time)).size, 1);
    assert.equal(got[3].time, got[4].time);
  });

  test('rotates by max-size keeping max-file files', async () => {
    const path = logPath();
    const writer = await JsonFileWriter.open(path, { maxSize: 1000, maxFile: 3 });
    for (let i = 0; i < 200; i++)
      await writer.log({
        source: 'stdout',
        line: Buffer.from(`line ${i}`),
        partial: false,
        time: nowNanos(),
      });
    await writer.close();
    const files = [`${path}.2`, `${path}.1`, path];
    const all: string[] = [];
    for (const f of files) {
      const size = (await stat(f)).size;
      assert.ok(size <= 1000 + 100, `${f} is ${size} bytes`);
      all.push(...(await entries(f)).map((e) => e.log));
    }
    await assert.rejects(stat(`${path}.3`), /ENOENT/);
    // What is kept is the newest lines, contiguous and in order.
    const first = Number(/line (\d+)/.exec(all[0])?.[1]);
    assert.deepEqual(
      all,
      Array.from({ length: 200 - first }, (_, i) => `line ${first + i}\n`),
    );
    assert.ok(first > 0 && all.length > 20);
  });

  test('max-file 1 truncates instead of rotating', async () => {
    const path = logPath();
    const writer = await JsonFileWriter.open(path, { maxSize: 500, maxFile: 1 });
    for (let i = 0; i < 100; i++)
      await writer.log({ source: 'stderr', line: Buffer.from(`l${i}`), partial: false, time: nowNanos() });
    await writer.close();
    const got = await entries(path);
    assert.ok((await stat(path)).size <= 600);
    assert.equal(got[got.length - 1].log, 'l99\n');
    await assert.rejects(stat(`${path}.1`), /ENOENT/);
  });

  test('stores attributes and appends after a reopen', async () => {
    const path = logPath();
    let writer = await JsonFileWriter.open(path, { maxFile: 1 }, { tag: 'web' });
    await writer.log({
      source: 'stdout',
      line: Buffer.from('one'),
      partial: false,
      time: 1_700_000_000_500_000_000n,
    });
    await writer.close();
    writer = await JsonFileWriter.open(path);
    await writer.log({ source: 'stdout', line: Buffer.from('two'), partial: false, time: nowNanos() });
    await writer.close();
    const got = await entries(path);
    assert.deepEqual(got[0], {
      log: 'one\n',
      stream: 'stdout',
      attrs: { tag: 'web' },
      time: '2023-11-14T22:13:20.5Z',
    });
    assert.equal(got[1].log, 'two\n');
    await assert.rejects(
      writer.log({ source: 'stdout', line: Buffer.from('x'), partial: false, time: 0n }),
      /closed/,
    );
  });
});

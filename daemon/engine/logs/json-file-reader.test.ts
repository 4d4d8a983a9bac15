import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonFileWriter, type LogSource } from './json-file-writer';
import {
  readJsonFileLogBatches,
  readJsonFileLogs,
  type LogMessage,
  type ReadLogsOptions,
} from './json-file-reader';
import { nowNanos } from './log-time';

const base = 1_700_000_000_000_000_000n;
const second = 1_000_000_000n;

async function readAll(path: string, options: ReadLogsOptions = {}): Promise<LogMessage[]> {
  const got: LogMessage[] = [];
  for await (const m of readJsonFileLogs(path, options)) got.push(m);
  return got;
}

const lines = (msgs: LogMessage[]) => msgs.map((m) => m.line);

/** Writes `count` lines `line <i>` at base + i seconds. */
async function writeLines(
  writer: JsonFileWriter,
  from: number,
  count: number,
  source: LogSource = 'stdout',
): Promise<void> {
  for (let i = from; i < from + count; i++) {
    await writer.log({
      source,
      line: Buffer.from(`line ${i}`),
      partial: false,
      time: base + BigInt(i) * second,
    });
  }
  await writer.flush();
}

/** Follows a log in the background, collecting lines; stop() ends it as a container stop would. */
function follow(path: string, options: ReadLogsOptions = {}) {
  const stopped = new AbortController();
  const got: string[] = [];
  const reading = (async () => {
    for await (const m of readJsonFileLogs(path, { ...options, follow: true, stopped: stopped.signal }))
      got.push(m.line);
  })();
  return {
    got,
    /** Waits until `count` lines have arrived, failing after 5 s. */
    async waitFor(count: number): Promise<void> {
      const deadline = Date.now() + 5000;
      while (got.length < count) {
        assert.ok(Date.now() < deadline, `only ${got.length} of ${count} lines: ${got.slice(-3).join('')}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    async stop(): Promise<void> {
      stopped.abort();
      await reading;
    },
  };
}

describe('json-file reader', () => {
  let dir: string;
  let n = 0;
  const logPath = () => join(dir, `c${++n}-json.log`);
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-logs-r-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('reads every entry with stream, text and a fixed nine-digit time', async () => {
    const path = logPath();
    const writer = await JsonFileWriter.open(path, { maxFile: 1 }, { tag: 'web' });
    await writeLines(writer, 0, 2);
    await writeLines(writer, 2, 1, 'stderr');
    await writer.log({
      source: 'stdout',
      line: Buffer.from('partial'),
      partial: true,
      time: base + 3n * second + 5n,
    });
    await writer.close();
    const got = await readAll(path);
    assert.deepEqual(got[0], {
      source: 'stdout',
      line: 'line 0\n',
      time: '2023-11-14T22:13:20.000000000Z',
      attrs: { tag: 'web' },
    });
    assert.deepEqual(
      got.map((m) => [m.source, m.line, m.time]),
      [
        ['stdout', 'line 0\n', '2023-11-14T22:13:20.000000000Z'],
        ['stdout', 'line 1\n', '2023-11-14T22:13:21.000000000Z'],
        ['stderr', 'line 2\n', '2023-11-14T22:13:22.000000000Z'],
        ['stdout', 'partial', '2023-11-14T22:13:23.000000005Z'],
      ],
    );
  });

  test('text that looks like the entry fields, quotes, backslashes and unicode read back whole', async () => {
    const path = logPath();
    const writer = await JsonFileWriter.open(path, { maxFile: 1 });
    const texts = [
      'x","stream":"stderr","time":"2001-01-01T00:00:00Z"}',
      'quote " backslash \\ tab \t end\\',
      'ünïcødé ✓ \u0001',
      '',
    ];
    for (const [i, text] of texts.entries()) {
      await writer.log({
        source: 'stderr',
        line: Buffer.from(text),
        partial: false,
        time: base + BigInt(i),
      });
    }
    await writer.close();
    const got = await readAll(path);
    assert.deepEqual(
      got.map((m) => m.line),
      texts.map((t) => `${t}\n`),
    );
    assert.ok(got.every((m) => m.source === 'stderr'));
    assert.equal(got[1].time, '2023-11-14T22:13:20.000000001Z');
  });

  test('a missing log reads as empty; garbage and an unterminated last entry are skipped', async () => {
    assert.deepEqual(await readAll(join(dir, 'nope.log')), []);
    const path = logPath();
    await writeFile(
      path,
      '{"log":"a\\n","stream":"stdout","time":"2023-11-14T22:13:20.1Z"}\nnot json\n{"log":"b\\n","stream":"stderr","time":"2023-11-14T22:13:21Z"}\n{"log":"c',
    );
    assert.deepEqual(lines(await readAll(path)), ['a\n', 'b\n']);
  });

  test('since and until bound by time, inclusive, as Docker does', async () => {
    const path = logPath();
    const writer = await JsonFileWriter.open(path);
    await writeLines(writer, 0, 10);
    await writer.close();
    assert.deepEqual(lines(await readAll(path, { since: base + 7n * second })), [
      'line 7\n',
      'line 8\n',
      'line 9\n',
    ]);
    assert.deepEqual(lines(await readAll(path, { until: base + 1n * second })), ['line 0\n', 'line 1\n']);
    assert.deepEqual(
      lines(await readAll(path, { since: base + 3n * second + 1n, until: base + 5n * second })),
      ['line 4\n', 'line 5\n'],
    );
    // tail first, then since, as Docker applies them.
    assert.deepEqual(lines(await readAll(path, { tail: 3, since: base + 8n * second })), [
      'line 8\n',
      'line 9\n',
    ]);
  });

  test('tail takes the last N lines across rotated files', async () => {
    const path = logPath();
    const writer = await JsonFileWriter.open(path, { maxSize: 300, maxFile: 10 });
    await writeLines(writer, 0, 40);
    await writer.close();
    const all = lines(await readAll(path, { maxFile: 10 }));
    assert.equal(all.length, 40);
    assert.deepEqual(
      all,
      Array.from({ length: 40 }, (_, i) => `line ${i}\n`),
    );
    for (const tail of [0, 1, 3, 4, 5, 13, 39, 40, 41, 1000]) {
      const got = lines(await readAll(path, { tail, maxFile: 10 }));
      assert.deepEqual(got, all.slice(Math.max(0, 40 - tail)), `tail ${tail}`);
    }
    assert.deepEqual(lines(await readAll(path, { tail: -1 })), all);
  });

  test('tail ignores an entry still being written', async () => {
    const path = logPath();
    await writeFile(
      path,
      '{"log":"a\\n","stream":"stdout","time":"2023-11-14T22:13:20Z"}\n{"log":"b\\n","stream":"stdout","time":"2023-11-14T22:13:21Z"}\n{"log":"c',
    );
    assert.deepEqual(lines(await readAll(path, { tail: 1 })), ['b\n']);
  });

  test('follow delivers new lines, across rotations, until the container stops', async () => {
    const path = logPath();
    // Enough files that none is dropped before the follower reads it (Docker loses those too).
    const writer = await JsonFileWriter.open(path, { maxSize: 400, maxFile: 8 });
    await writeLines(writer, 0, 3);
    const follower = follow(path, { tail: 2, maxFile: 8 });
    try {
      await follower.waitFor(2);
      // Each batch rotates the file twice or so (about 6 lines per file) before the follower looks.
      for (let batch = 0; batch < 10; batch++) {
        await writeLines(writer, 3 + batch * 10, 10);
        await follower.waitFor(2 + (batch + 1) * 10);
      }
      await writeLines(writer, 103, 2);
    } finally {
      await follower.stop();
      await writer.close();
    }
    assert.deepEqual(
      follower.got,
      Array.from({ length: 104 }, (_, i) => `line ${i + 1}\n`),
    );
  });

  test('follow with the max-file 1 truncation starts the new file from its beginning', async () => {
    const path = logPath();
    const writer = await JsonFileWriter.open(path, { maxSize: 150, maxFile: 1 });
    await writeLines(writer, 0, 1);
    const follower = follow(path);
    try {
      for (let i = 1; i < 6; i++) {
        await writeLines(writer, i, 1);
        await follower.waitFor(i + 1);
      }
    } finally {
      await follower.stop();
      await writer.close();
    }
    assert.deepEqual(
      follower.got,
      Array.from({ length: 6 }, (_, i) => `line ${i}\n`),
    );
  });

  test('follow on a stopped container returns what is written and ends', async () => {
    const path = logPath();
    const writer = await JsonFileWriter.open(path);
    await writeLines(writer, 0, 3);
    await writer.close();
    const stopped = AbortSignal.abort();
    assert.deepEqual(lines(await readAll(path, { follow: true, stopped, tail: 1 })), ['line 2\n']);
  });

  test('follow ends at once when the client goes, and after until', async () => {
    const path = logPath();
    const writer = await JsonFileWriter.open(path);
    await writeLines(writer, 0, 2);
    const gone = new AbortController();
    const started = Date.now();
    const reading = readAll(path, {
      follow: true,
      signal: gone.signal,
      stopped: new AbortController().signal,
    });
    setTimeout(() => gone.abort(), 50);
    assert.deepEqual(lines(await reading), ['line 0\n', 'line 1\n']);
    assert.ok(Date.now() - started < 900);

    const stop = new AbortController();
    const untilNow = nowNanos() + 200_000_000n;
    const bounded = readAll(path, { follow: true, until: untilNow, stopped: stop.signal });
    await writer.log({
      source: 'stdout',
      line: Buffer.from('late'),
      partial: false,
      time: untilNow + second,
    });
    await writer.flush();
    assert.deepEqual(lines(await bounded), ['line 0\n', 'line 1\n']);
    await writer.close();
  });

  test('reads a file written by Docker', async () => {
    const path = logPath();
    await appendFile(
      path,
      '{"log":"hello\\n","stream":"stdout","attrs":{"com.x":"1"},"time":"2021-03-04T05:06:07.08Z"}\n' +
        '{"log":"\\u003cb\\u003e\\n","stream":"stderr","time":"2021-03-04T05:06:07.123456789Z"}\n',
    );
    assert.deepEqual(await readAll(path), [
      { source: 'stdout', line: 'hello\n', time: '2021-03-04T05:06:07.080000000Z', attrs: { 'com.x': '1' } },
      { source: 'stderr', line: '<b>\n', time: '2021-03-04T05:06:07.123456789Z' },
    ]);
  });

  test('200,000 lines read back complete, in order, fast', async () => {
    const path = logPath();
    const writer = await JsonFileWriter.open(path);
    const { Readable } = await import('node:stream');
    const total = 200_000;
    const text = Array.from(
      { length: total },
      (_, i) => `log line number ${i} with some padding text\n`,
    ).join('');
    await writer.copyFrom(Readable.from([Buffer.from(text)]), 'stdout');
    await writer.close();
    const started = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    let count = 0;
    let bytes = 0;
    for await (const batch of readJsonFileLogBatches(path)) {
      for (const m of batch) {
        if (m.line !== `log line number ${count} with some padding text\n`)
          assert.fail(`line ${count}: ${m.line}`);
        count++;
        bytes += m.line.length;
      }
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const used = process.cpuUsage(cpu);
    const cpuSeconds = (used.user + used.system) / 1e6;
    assert.equal(count, total);
    // Docker 20.10 does 1.66 MB/s end to end on this machine; the reader must leave room for 3x
    // and more. Measured in CPU time: the machine may be busy with other test files.
    const rate = bytes / 1e6 / cpuSeconds;
    assert.ok(rate > 10, `${rate.toFixed(1)} MB/s of CPU time`);
    const tailed = lines(await readAll(path, { tail: 3 }));
    assert.deepEqual(
      tailed,
      [199_997, 199_998, 199_999].map((i) => `log line number ${i} with some padding text\n`),
    );
    console.log(
      `# read ${count} lines, ${(bytes / 1e6).toFixed(1)} MB of text in ${seconds.toFixed(2)} s (${cpuSeconds.toFixed(2)} s CPU): ${rate.toFixed(1)} MB/s`,
    );
  });
});

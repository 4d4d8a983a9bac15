import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { FlushingAppender } from './flushing-appender';

test('an appender that flushes as it goes writes every byte in order after what the file held', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'flushing-appender-'));
  try {
    const file = join(dir, 'data');
    const head = randomBytes(1000);
    await writeFile(file, head);
    // Pieces of every size around the flush stretch, so flushes start mid-stream many times.
    const pieces = Array.from({ length: 200 }, (_, i) => randomBytes(1 + ((i * 7919) % 150_000)));
    const out = new FlushingAppender(await open(file, 'a'), 256 << 10, 64 << 10);
    await pipeline(Readable.from(pieces), out);
    assert.deepEqual(await readFile(file), Buffer.concat([head, ...pieces]));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { InvalidParameterError } from '../../api/errors';
import { DetachKeysFilter, parseDetachKeys } from './detach-keys';

const ctrlP = '\x10';
const ctrlQ = '\x11';

/** Feeds chunks through a filter; returns what passed and whether it detached. */
async function run(
  keys: string,
  chunks: string[],
  endInput = true,
): Promise<{ out: string; detached: boolean }> {
  const filter = new DetachKeysFilter(parseDetachKeys(keys));
  let detached = false;
  filter.on('detach', () => (detached = true));
  const out: Buffer[] = [];
  filter.on('data', (c: Buffer) => out.push(c));
  const ended = new Promise<void>((r) => filter.on('end', r));
  for (const c of chunks) filter.write(Buffer.from(c, 'latin1'));
  if (endInput) filter.end();
  await (endInput || detached ? ended : new Promise((r) => setImmediate(r)));
  return { out: Buffer.concat(out).toString('latin1'), detached };
}

describe('detach keys', () => {
  test('parses Docker syntax', () => {
    assert.deepEqual([...parseDetachKeys('ctrl-p,ctrl-q')], [0x10, 0x11]);
    assert.deepEqual([...parseDetachKeys(undefined)], [0x10, 0x11]);
    assert.deepEqual([...parseDetachKeys('')], [0x10, 0x11]);
    assert.deepEqual(
      [...parseDetachKeys('ctrl-@,ctrl-a,ctrl-z,ctrl-[,ctrl-\\,ctrl-],ctrl-^,ctrl-_')],
      [0, 1, 26, 27, 28, 29, 30, 31],
    );
    assert.deepEqual([...parseDetachKeys('a,ctrl-x,b')], [0x61, 0x18, 0x62]);
  });

  test('rejects invalid keys with a 400 kind of error', () => {
    for (const bad of ['ctrl-', 'ctrl-1', 'ctrl-P', 'ctrl-ab', 'abc', 'a,,b', 'shift-a', 'é']) {
      assert.throws(
        () => parseDetachKeys(bad),
        (err) => {
          assert.ok(err instanceof InvalidParameterError, bad);
          assert.match((err as Error).message, /Invalid detachKeys/);
          return true;
        },
      );
    }
  });

  test('passes stdin through untouched when the sequence never comes', async () => {
    const r = await run('ctrl-p,ctrl-q', ['hello ', 'world\n']);
    assert.deepEqual(r, { out: 'hello world\n', detached: false });
  });

  test('detaches on the sequence, keeping what came before and dropping what follows', async () => {
    const r = await run('ctrl-p,ctrl-q', [`ls -l\n${ctrlP}${ctrlQ}exit\n`], false);
    assert.deepEqual(r, { out: 'ls -l\n', detached: true });
  });

  test('detaches on a sequence split across reads', async () => {
    const r = await run('ctrl-p,ctrl-q', ['abc', ctrlP, '', ctrlQ, 'zzz'], false);
    assert.deepEqual(r, { out: 'abc', detached: true });
  });

  test('a partial match then a mismatch passes all the bytes through, in order', async () => {
    const r = await run('ctrl-p,ctrl-q', ['a', ctrlP, 'b', `c${ctrlP}`, 'x']);
    assert.deepEqual(r, { out: `a${ctrlP}bc${ctrlP}x`, detached: false });
  });

  test('held bytes are not delivered before the match is decided', async () => {
    const filter = new DetachKeysFilter(parseDetachKeys('ctrl-p,ctrl-q'));
    const out: string[] = [];
    filter.on('data', (c: Buffer) => out.push(c.toString('latin1')));
    filter.write(Buffer.from(`ab${ctrlP}`, 'latin1'));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(out, ['ab']);
    filter.write(Buffer.from('c'));
    await new Promise((r) => setImmediate(r));
    assert.equal(out.join(''), `ab${ctrlP}c`);
  });

  test('a mismatching byte can itself start the sequence', async () => {
    const r = await run('ctrl-p,ctrl-q', [ctrlP, ctrlP, ctrlQ], false);
    assert.deepEqual(r, { out: ctrlP, detached: true });
    const overlap = await run('a,a,b', ['aaab'], false);
    assert.deepEqual(overlap, { out: 'a', detached: true });
  });

  test('stdin ending inside a possible sequence delivers the held bytes', async () => {
    const r = await run('ctrl-p,ctrl-q', ['x', ctrlP]);
    assert.deepEqual(r, { out: `x${ctrlP}`, detached: false });
  });

  test('didDetach tells a detach from stdin closing', async () => {
    const detaching = new DetachKeysFilter(parseDetachKeys('ctrl-c'));
    detaching.resume();
    detaching.end(Buffer.from('a\x03'));
    await once(detaching, 'end');
    assert.equal(detaching.didDetach, true);
    const closing = new DetachKeysFilter(parseDetachKeys('ctrl-c'));
    closing.resume();
    closing.end(Buffer.from('a'));
    await once(closing, 'end');
    assert.equal(closing.didDetach, false);
  });

  test('a single-key sequence', async () => {
    const r = await run('ctrl-c', ['ab\x03cd'], false);
    assert.deepEqual(r, { out: 'ab', detached: true });
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Readable, Writable } from 'node:stream';
import { JsonLinesWriter, LineSplitter, readJsonLines, splitLines } from './json-lines';

describe('json-lines', () => {
  test('LineSplitter yields every line whatever the cut, carrying the tail', () => {
    const text = 'alpha\nbeta\n\ngamma delta\nlast';
    for (let cut = 1; cut <= text.length; cut++) {
      const splitter = new LineSplitter();
      const lines: string[] = [];
      for (let off = 0; off < text.length; off += cut) {
        splitter.push(Buffer.from(text.slice(off, off + cut)), (b, s, e) =>
          lines.push(b.toString('utf8', s, e)),
        );
      }
      assert.deepEqual(lines, ['alpha', 'beta', '', 'gamma delta'], `cut ${cut}`);
      assert.equal(splitter.take()?.toString(), 'last');
      assert.equal(splitter.take(), undefined);
    }
  });

  test('splitLines includes an unterminated last line', async () => {
    const lines: string[] = [];
    for await (const l of splitLines(Readable.from(['a\nb', 'c\n', 'd']))) lines.push(l.toString());
    assert.deepEqual(lines, ['a', 'bc', 'd']);
  });

  test('readJsonLines parses values split across chunks and skips blank lines', async () => {
    const values: unknown[] = [];
    for await (const v of readJsonLines(Readable.from(['{"status":"Pul', 'ling"}\n\n', '{"id":1}\r\n[2]'])))
      values.push(v);
    assert.deepEqual(values, [{ status: 'Pulling' }, { id: 1 }, [2]]);
    await assert.rejects(async () => {
      for await (const _ of readJsonLines(Readable.from(['{"a":1}\n{oops}\n']))) void _;
    }, SyntaxError);
  });

  test('the writer begins once, writes one value per line, and reports errors in-stream', async () => {
    const out = new PassThrough();
    let begun = 0;
    const writer = new JsonLinesWriter(out, () => begun++);
    assert.equal(writer.started, false);
    await writer.write({ status: 'Pulling fs layer', id: 'abc' });
    assert.equal(writer.started, true);
    await writer.writeError(new Error('manifest unknown'));
    await writer.writeError('denied', 401);
    writer.end();
    const lines: unknown[] = [];
    for await (const v of readJsonLines(out)) lines.push(v);
    assert.equal(begun, 1);
    assert.deepEqual(lines, [
      { status: 'Pulling fs layer', id: 'abc' },
      { error: 'manifest unknown', errorDetail: { message: 'manifest unknown' } },
      { error: 'denied', errorDetail: { code: 401, message: 'denied' } },
    ]);
  });

  test('an empty stream still begins when ended', () => {
    let begun = false;
    new JsonLinesWriter(new PassThrough(), () => (begun = true)).end();
    assert.equal(begun, true);
  });

  test('write waits for drain and fails once the peer is gone', async () => {
    let release: () => void = () => undefined;
    const slow = new Writable({
      highWaterMark: 8,
      write(_c, _e, cb) {
        release = cb;
      },
    });
    const writer = new JsonLinesWriter(slow);
    const pending = writer.write({ big: 'x'.repeat(100) });
    let settled = false;
    void pending.then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(settled, false);
    release();
    await pending;
    const blocked = writer.write({ big: 'y'.repeat(100) });
    slow.destroy();
    await assert.rejects(blocked, /closed by the peer/);
    await assert.rejects(writer.write({}), /closed by the peer/);
  });
});

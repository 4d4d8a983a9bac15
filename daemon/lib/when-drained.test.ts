import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { whenDrained } from './when-drained';

/** A destination that takes one byte before it wants a drain, and holds writes until `release`. */
function slowSink(): { out: Writable; release: () => void } {
  const held: Array<() => void> = [];
  const out = new Writable({
    highWaterMark: 1,
    write: (_chunk, _enc, cb) => held.push(cb),
  });
  return { out, release: () => held.splice(0).forEach((cb) => cb()) };
}

describe('whenDrained', () => {
  test('resolves at once when the destination takes more', async () => {
    const { out } = slowSink();
    await whenDrained(out);
  });

  test("waits for 'drain'", async () => {
    const { out, release } = slowSink();
    assert.equal(out.write('ab'), false);
    let drained = false;
    const wait = whenDrained(out).then(() => (drained = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(drained, false);
    release();
    await wait;
    assert.equal(drained, true);
  });

  test('a closed destination ends the wait, or fails it when a message is given', async () => {
    const first = slowSink();
    first.out.write('ab');
    const waited = whenDrained(first.out);
    first.out.destroy();
    await waited;
    const second = slowSink();
    second.out.write('ab');
    const failed = whenDrained(second.out, { closedMessage: 'peer gone' });
    second.out.destroy();
    await assert.rejects(failed, /peer gone/);
    await assert.rejects(whenDrained(second.out, { closedMessage: 'peer gone' }), /peer gone/);
  });

  test('an aborted signal ends the wait', async () => {
    const { out } = slowSink();
    out.write('ab');
    const gone = new AbortController();
    const wait = whenDrained(out, { signal: gone.signal });
    gone.abort();
    await wait;
  });
});

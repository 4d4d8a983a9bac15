import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventsService } from './events-service';
import type { EngineEvent } from '../../api/event-types';

async function collect(it: AsyncIterable<EngineEvent>, n: number): Promise<EngineEvent[]> {
  const out: EngineEvent[] = [];
  for await (const e of it) {
    out.push(e);
    if (out.length === n) break;
  }
  return out;
}

describe('EventsService', () => {
  test('container events carry the legacy status/id/from fields and Actor attributes', () => {
    const events = new EventsService();
    const e = events.publish('container', 'die', {
      id: 'abc',
      attributes: { image: 'busybox', name: 'web', exitCode: '3' },
    });
    assert.equal(e.status, 'die');
    assert.equal(e.id, 'abc');
    assert.equal(e.from, 'busybox');
    assert.equal(e.Actor.Attributes.exitCode, '3');
    assert.equal(e.scope, 'local');
    assert.equal(Math.floor(e.timeNano / 1e9), e.time);
    const n = events.publish('network', 'create', { id: 'n1', attributes: { name: 'net' } });
    assert.equal(n.status, undefined);
  });

  test('events published within one millisecond keep their order in time and timeNano', () => {
    const events = new EventsService();
    const before = Date.now();
    const stamps = Array.from(
      { length: 200 },
      (_, i) => events.publish('container', 'top', { id: `c${i}` }).timeNano,
    );
    for (let i = 1; i < stamps.length; i++) assert.ok(stamps[i] > stamps[i - 1], `event ${i} after ${i - 1}`);
    assert.ok(
      stamps[0] >= before * 1e6 && stamps[0] <= (Date.now() + 1) * 1e6,
      'stamped with the wall clock',
    );
  });

  test('since replays the journal, then live events follow, filtered', async () => {
    const events = new EventsService();
    const t0 = BigInt(Date.now()) * 1_000_000n;
    events.publish('container', 'create', { id: 'c1', attributes: { name: 'one', image: 'busybox' } });
    events.publish('image', 'tag', { id: 'sha256:1', attributes: { name: 'busybox:latest' } });
    events.publish('container', 'start', { id: 'c1', attributes: { name: 'one', image: 'busybox' } });
    const ac = new AbortController();
    const stream = events.subscribe({
      sinceNano: t0,
      filters: new Map([['type', ['container']]]),
      signal: ac.signal,
    });
    const got = collect(stream, 3);
    setTimeout(
      () => events.publish('container', 'die', { id: 'c1', attributes: { name: 'one', exitCode: '0' } }),
      20,
    );
    const list = await got;
    assert.deepEqual(
      list.map((e) => e.Action),
      ['create', 'start', 'die'],
    );
    ac.abort();
    assert.equal(events.listenerCount, 0);
  });

  test('until ends the stream; label, event and container filters select', async () => {
    const events = new EventsService();
    const t0 = BigInt(Date.now()) * 1_000_000n;
    events.publish('container', 'create', { id: 'aaa111', attributes: { name: 'x', env: 'prod' } });
    events.publish('container', 'create', { id: 'bbb222', attributes: { name: 'y', env: 'dev' } });
    events.publish('container', 'health_status: healthy', {
      id: 'aaa111',
      attributes: { name: 'x', env: 'prod' },
    });
    const until = BigInt(Date.now()) * 1_000_000n + 50_000_000n;
    const ac = new AbortController();
    const sel = async (filters: Array<[string, string[]]>) => {
      const out: string[] = [];
      for await (const e of events.subscribe({
        sinceNano: t0,
        untilNano: until,
        filters: new Map(filters),
        signal: ac.signal,
      }))
        out.push(`${e.Actor.ID}:${e.Action}`);
      return out;
    };
    assert.deepEqual(await sel([['label', ['env=prod']]]), [
      'aaa111:create',
      'aaa111:health_status: healthy',
    ]);
    assert.deepEqual(await sel([['event', ['health_status']]]), ['aaa111:health_status: healthy']);
    assert.deepEqual(await sel([['container', ['y']]]), ['bbb222:create']);
    assert.deepEqual(await sel([['container', ['bbb']]]), ['bbb222:create']);
  });

  test('the image filter matches names with or without their tag, as Docker compares them', async () => {
    const events = new EventsService();
    const t0 = BigInt(Date.now()) * 1_000_000n;
    events.publish('image', 'pull', { id: 'busybox:latest', attributes: { name: 'busybox:latest' } });
    events.publish('image', 'tag', { id: 'sha256:abc', attributes: { name: 'busybox:1.36' } });
    events.publish('container', 'create', { id: 'c1', attributes: { name: 'one', image: 'busybox' } });
    events.publish('container', 'create', { id: 'c2', attributes: { name: 'two', image: 'alpine:3' } });
    const until = BigInt(Date.now()) * 1_000_000n + 50_000_000n;
    const sel = async (image: string) => {
      const out: string[] = [];
      const filters = new Map([['image', [image]]]);
      const signal = new AbortController().signal;
      for await (const e of events.subscribe({ sinceNano: t0, untilNano: until, filters, signal }))
        out.push(`${e.Actor.ID}:${e.Action}`);
      return out;
    };
    assert.deepEqual(await sel('busybox'), ['busybox:latest:pull', 'sha256:abc:tag', 'c1:create']);
    assert.deepEqual(await sel('busybox:latest'), ['busybox:latest:pull']);
    assert.deepEqual(await sel('alpine'), ['c2:create']);
    assert.deepEqual(await sel('sha256:abc'), ['sha256:abc:tag']);
  });
});

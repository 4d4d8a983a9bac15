// A kill while a stop waits out its grace period (found by the fuzz suite: kills queued behind
// stops went unanswered): as with dockerd, the kill reaches the container at once and both
// requests succeed, instead of the kill waiting the whole timeout and then finding it stopped.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { EngineEvent } from '../../../api/event-types';
import {
  containerEvents,
  eventually,
  expectStatus,
  inspect,
  run,
  useEngine,
} from '../../../testing/containers-fixture';

describe('kill during stop', () => {
  const engine = useEngine();

  test('a kill while a stop waits for its timeout ends the container before the stop would', async () => {
    const { svcd } = engine();
    // sleep as pid 1 has no SIGTERM handler: only the kill (or the stop's own, 30 s on) ends it.
    const id = await run(svcd, { Cmd: ['sleep', '3600'] });
    const order: string[] = [];
    const stop = svcd.request('POST', `/containers/${id}/stop?t=30`).then((res) => {
      order.push('stop');
      return res;
    });
    // The stop has sent its signal once the kill event of SIGTERM is in the events.
    const sigterm = (events: EngineEvent[]) =>
      events.some((e) => e.Action === 'kill' && e.Actor.Attributes.signal === '15');
    assert.ok(sigterm(await eventually(() => containerEvents(svcd, id, 0), sigterm)), 'the stop signalled');
    const kill = await svcd.request('POST', `/containers/${id}/kill`);
    order.push('kill');
    expectStatus(kill, 204, 'kill');
    expectStatus(await stop, 204, 'stop');
    assert.deepEqual(order, ['kill', 'stop'], 'the kill answered while the stop was waiting');
    const state = (await inspect<{ State: { Running: boolean; ExitCode: number } }>(svcd, id)).State;
    assert.equal(state.Running, false);
    assert.equal(state.ExitCode, 137);
  });
});

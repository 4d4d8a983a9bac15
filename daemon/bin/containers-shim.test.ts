import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { eventually, expectStatus, inspect, run, useEngine } from '../testing/containers-fixture';
import { shimsOf } from './testing/shim-processes';

function parentOf(pid: number): number {
  return Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
}

describe('containers share one runc shim', () => {
  const suite = useEngine();

  test('one shim runs every container, and goes when svcd stops with none running', async () => {
    const { svcd } = suite();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await run(svcd, { Cmd: ['sleep', '300'] }));
    const shims = shimsOf(svcd.dataRoot);
    assert.equal(shims.length, 1, `shims: ${shims.join(' ')}`);
    for (const id of ids) assert.equal(parentOf((await inspect(svcd, id)).State.Pid), shims[0]);
    for (const id of ids) expectStatus(await svcd.request('DELETE', `/containers/${id}?force=1`), 204);
    // The shim stays for the next container while svcd runs.
    assert.deepEqual(shimsOf(svcd.dataRoot), shims);
    await svcd.stop();
    const left = await eventually(
      async () => shimsOf(svcd.dataRoot),
      (s) => s.length === 0,
    );
    assert.deepEqual(left, []);
    await svcd.start();
  });

  test('a killed shim: its containers are recorded as exited, and the next ones start', async () => {
    const { svcd } = suite();
    const id = await run(svcd, { Cmd: ['sleep', '300'] });
    const [shim] = shimsOf(svcd.dataRoot);
    process.kill(shim, 'SIGKILL');
    const state = (
      await eventually(
        () => inspect(svcd, id),
        (i) => !i.State.Running,
      )
    ).State;
    assert.equal(state.Status, 'exited');
    assert.notEqual(state.ExitCode, 0);
    const next = await run(svcd, { Cmd: ['sh', '-c', 'echo alive'] });
    const wait = expectStatus(await svcd.request('POST', `/containers/${next}/wait`), 200);
    assert.equal(wait.json<{ StatusCode: number }>().StatusCode, 0);
    const logs = await svcd.request('GET', `/containers/${next}/logs?stdout=1`);
    assert.match(logs.text(), /alive/);
    // The keeper came back with the new shim, which again serves the next container.
    const shims = await eventually(
      async () => shimsOf(svcd.dataRoot),
      (s) => s.length === 1,
    );
    const again = await run(svcd, { Cmd: ['sleep', '300'] });
    assert.equal(parentOf((await inspect(svcd, again)).State.Pid), shims[0]);
  });
});

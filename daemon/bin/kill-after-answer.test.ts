// svcd killed with SIGKILL the moment each lifecycle phase has answered (create, start, stop,
// wait, delete) and started again on the same data root: the container is in the state the
// answer said, and neither the host (host-leaks.ts) nor svcd's containerd holds anything beyond
// what that state needs. Work a phase finishes after its answer (a removal's teardown, an exited
// task's deletion) is finished by the next svcd instead.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { ContainerInspect } from '../api/container-summary-types';
import { shimKeeperId } from '../engine/containers/shim-keeper';
import { create, expectStatus, inspect, run, useEngine } from '../testing/containers-fixture';
import { poll } from '../testing/poll';
import type { SvcdInstance } from '../testing/svcd-harness';
import { hostLeaks } from './testing/host-leaks';

/** What svcd's containerd lists in svcd's namespace: containers, tasks or snapshots. */
function containerdList(svcd: SvcdInstance, what: 'containers' | 'tasks' | 'snapshots'): string[] {
  const address = join(svcd.dataRoot, 'containerd', 'containerd.sock');
  const out = execFileSync('ctr', ['--address', address, '-n', 'svc', what, 'ls'], { encoding: 'utf8' });
  return out
    .split('\n')
    .slice(1)
    .map((line) => line.split(/\s+/)[0])
    .filter(Boolean);
}

/**
 * Everything svcd holds for `id` beyond what its state allows (nothing once it is removed), and
 * for the containers svcd lists beyond what theirs allow, polled for a while: an exited task's
 * deletion or a removal's teardown may still be finishing.
 */
async function leftovers(svcd: SvcdInstance, id: string, state: 'gone' | 'stopped' | 'running') {
  const keeper = shimKeeperId(svcd.dataRoot);
  const check = async () => {
    const listed = (await svcd.request('GET', '/containers/json?all=1')).json<
      Array<{ Id: string; State: string }>
    >();
    const live = listed.filter((c) => c.State === 'running' || c.State === 'paused').map((c) => c.Id);
    const problems = hostLeaks(
      { dir: svcd.dir, dataRoot: svcd.dataRoot, bridge: svcd.bridge, knownIds: new Set([id, keeper]) },
      { existing: new Set(listed.map((c) => c.Id)), live: new Set([...live, keeper]), shims: 1 },
    );
    if (state !== 'running' && containerdList(svcd, 'tasks').includes(id)) problems.push(`task ${id}`);
    if (state === 'gone') {
      if (listed.some((c) => c.Id === id)) problems.push(`container ${id} listed`);
      if (containerdList(svcd, 'containers').includes(id)) problems.push(`containerd container ${id}`);
      if (containerdList(svcd, 'snapshots').includes(id)) problems.push(`snapshot ${id}`);
      const dir = join(svcd.dataRoot, 'containers', id);
      if (existsSync(dir)) problems.push(`directory ${dir}`);
    }
    return problems;
  };
  const clean = await poll(async () => ((await check()).length === 0 ? { value: true } : undefined), {
    timeoutMs: 30_000,
    intervalMs: 100,
  });
  return clean ? [] : check();
}

async function killAndRestart(svcd: SvcdInstance): Promise<void> {
  await svcd.kill9();
  await svcd.start();
}

describe('svcd killed with -9 right after a lifecycle phase answers', () => {
  const suite = useEngine();

  test('after create: the container is created, nothing of it in containerd before its start, and it starts', async () => {
    const { svcd } = suite();
    const id = await create(svcd, { Cmd: ['sleep', '300'] });
    await killAndRestart(svcd);
    assert.equal((await inspect(svcd, id)).State.Status, 'created');
    assert.ok(!containerdList(svcd, 'containers').includes(id));
    assert.ok(!containerdList(svcd, 'snapshots').includes(id));
    assert.deepEqual(await leftovers(svcd, id, 'stopped'), []);
    // And it still starts.
    expectStatus(await svcd.request('POST', `/containers/${id}/start`), 204, 'start');
    expectStatus(await svcd.request('DELETE', `/containers/${id}?force=1`), 204, 'delete');
  });

  test('after start: the container runs on, the same process', async () => {
    const { svcd } = suite();
    const id = await run(svcd, { Cmd: ['sleep', '300'] });
    await killAndRestart(svcd);
    const { State } = await inspect(svcd, id);
    assert.equal(State.Status, 'running');
    const before = State.Pid;
    assert.ok(before > 0);
    assert.deepEqual(await leftovers(svcd, id, 'running'), []);
    assert.equal((await inspect(svcd, id)).State.Pid, before);
    expectStatus(await svcd.request('DELETE', `/containers/${id}?force=1`), 204, 'delete');
  });

  test('after stop: the container is exited, its task and runc state gone', async () => {
    const { svcd } = suite();
    const id = await run(svcd, { Cmd: ['sleep', '300'] });
    expectStatus(await svcd.request('POST', `/containers/${id}/stop?t=0`), 204, 'stop');
    await killAndRestart(svcd);
    const { State } = await inspect<ContainerInspect>(svcd, id);
    assert.equal(State.Status, 'exited');
    assert.equal(State.ExitCode, 137);
    assert.deepEqual(await leftovers(svcd, id, 'stopped'), []);
    expectStatus(await svcd.request('DELETE', `/containers/${id}`), 204, 'delete');
  });

  test('after wait: the exit it answered is the one recorded', async () => {
    const { svcd } = suite();
    const id = await run(svcd, { Cmd: ['sh', '-c', 'exit 3'] });
    const wait = expectStatus(await svcd.request('POST', `/containers/${id}/wait`), 200, 'wait');
    assert.equal(wait.json<{ StatusCode: number }>().StatusCode, 3);
    await killAndRestart(svcd);
    const { State } = await inspect(svcd, id);
    assert.equal(State.Status, 'exited');
    assert.equal(State.ExitCode, 3);
    assert.deepEqual(await leftovers(svcd, id, 'stopped'), []);
    expectStatus(await svcd.request('DELETE', `/containers/${id}`), 204, 'delete');
  });

  test('after delete of a container never started: it is gone, its layer too', async () => {
    const { svcd } = suite();
    const id = await create(svcd, { Cmd: ['true'] }, 'doomedfresh');
    expectStatus(await svcd.request('DELETE', `/containers/${id}`), 204, 'delete');
    await killAndRestart(svcd);
    expectStatus(await svcd.request('GET', `/containers/${id}/json`), 404, 'inspect');
    assert.deepEqual(await leftovers(svcd, id, 'gone'), []);
    const again = await create(svcd, { Cmd: ['true'] }, 'doomedfresh');
    expectStatus(await svcd.request('DELETE', `/containers/${again}`), 204, 'delete');
  });

  for (const [what, body, query] of [
    ['an exited container', { Cmd: ['true'] }, ''],
    ['a running one, forced', { Cmd: ['sleep', '300'] }, '?force=1'],
  ] as const) {
    test(`after delete of ${what}: it is gone, and all it held`, async (t) => {
      const { svcd } = suite();
      const id = await run(svcd, body, `doomed${query ? 'forced' : ''}`);
      if (!query) expectStatus(await svcd.request('POST', `/containers/${id}/wait`), 200, 'wait');
      expectStatus(await svcd.request('DELETE', `/containers/${id}${query}`), 204, 'delete');
      const retired = join(svcd.dataRoot, 'containers', id, 'retired-config.json');
      // Most runs kill svcd while the removal is still taking the container apart.
      t.diagnostic(`teardown ${existsSync(retired) ? 'still under way' : 'already done'} at the kill`);
      await killAndRestart(svcd);
      expectStatus(await svcd.request('GET', `/containers/${id}/json`), 404, 'inspect');
      assert.deepEqual(await leftovers(svcd, id, 'gone'), []);
      // The name is free again.
      const again = await create(svcd, { Cmd: ['true'] }, `doomed${query ? 'forced' : ''}`);
      expectStatus(await svcd.request('DELETE', `/containers/${again}`), 204, 'delete');
    });
  }
});

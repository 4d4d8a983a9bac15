import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, watch } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DEFAULT_CGROUP_PARENT } from '../runtime/oci-spec/build-spec';
import { runcStateDir } from '../testing/svcd-harness';
import type { EngineResponse } from '../testing/engine-client';
import { create, eventually, expectStatus, inspect, useEngine } from '../testing/containers-fixture';

/** What runc left on the host for a container: its state and its cgroups. */
function runcLeftovers(dataRoot: string, id: string): string[] {
  return [
    join(runcStateDir(dataRoot), id),
    ...readdirSync('/sys/fs/cgroup').map((hierarchy) =>
      join('/sys/fs/cgroup', hierarchy, DEFAULT_CGROUP_PARENT, id),
    ),
  ].filter((p) => existsSync(p));
}

/** containerd's directory of the container's task. */
const taskDir = (dataRoot: string, id: string) =>
  join(dataRoot, 'containerd', 'state', 'io.containerd.runtime.v2.task', 'svc', id);

describe('containerd killed while a container starts', () => {
  const suite = useEngine();

  /** Starts a new container and SIGKILLs containerd with the task's Create in flight. */
  async function startCutShort(): Promise<{ id: string; start: EngineResponse }> {
    const { svcd } = suite();
    const id = await create(svcd, { Cmd: ['sleep', '300'] });
    const containerdPid = Number(readFileSync(join(svcd.dataRoot, 'containerd', 'containerd.pid'), 'utf8'));
    // runc makes the container's state directory at the beginning of its create: containerd
    // dies with the task's Create in flight; the shim's runc is killed with the request.
    let killed = false;
    const watcher = watch(runcStateDir(svcd.dataRoot), (_, name) => {
      if (name !== id || killed) return;
      killed = true;
      process.kill(containerdPid, 'SIGKILL');
    });
    try {
      const start = await svcd.request('POST', `/containers/${id}/start`);
      assert.ok(killed, 'containerd was killed during the start');
      return { id, start };
    } finally {
      watcher.close();
    }
  }

  test('the start fails, and once containerd is back runc state and cgroups are gone', async () => {
    const { svcd } = suite();
    const { id, start } = await startCutShort();
    assert.ok(start.status >= 500, `start answered ${start.status}: ${start.text()}`);
    assert.match(start.json<{ message: string }>().message, /containerd/);

    const state = (await inspect(svcd, id)).State;
    assert.equal(state.Running, false);
    assert.match(state.Error, /containerd/);
    const left = await eventually(
      async () => runcLeftovers(svcd.dataRoot, id),
      (l) => l.length === 0,
    );
    assert.deepEqual(left, []);
    assert.equal((await inspect(svcd, id)).State.Running, false);
    expectStatus(await svcd.request('DELETE', `/containers/${id}?force=1`), 204);
  });

  test('removing it leaves no task directory, runc state or cgroups', async () => {
    const { svcd } = suite();
    const { id } = await startCutShort();
    // Once containerd is back (svcd's reconcile has removed runc's state by then).
    await eventually(
      async () => runcLeftovers(svcd.dataRoot, id),
      (l) => l.length === 0,
    );
    expectStatus(await svcd.request('DELETE', `/containers/${id}?force=1`), 204);
    assert.equal(existsSync(taskDir(svcd.dataRoot, id)), false, 'containerd dropped the task');
    assert.deepEqual(runcLeftovers(svcd.dataRoot, id), []);
  });

  test('the container starts again, and containerd keeps no task directory for it', async () => {
    const { svcd } = suite();
    const { id } = await startCutShort();
    await eventually(
      async () => runcLeftovers(svcd.dataRoot, id),
      (l) => l.length === 0,
    );
    expectStatus(await svcd.request('POST', `/containers/${id}/start`), 204);
    assert.equal(existsSync(taskDir(svcd.dataRoot, id)), true);
    expectStatus(await svcd.request('DELETE', `/containers/${id}?force=1`), 204);
    assert.equal(existsSync(taskDir(svcd.dataRoot, id)), false);
  });
});

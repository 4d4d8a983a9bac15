// Many clients racing on the same container names: 20 names, 10 racers each, 200 requests in
// flight per step. Exactly one create wins a name (the others get dockerd's 409), lifecycle calls
// on a shared container agree with one another, and once everything is deleted nothing is left
// in svcd, its containerd, runc's state or the mount table.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runcStateDir, type SvcdInstance } from '../../../testing/svcd-harness';
import type { EngineResponse } from '../../../testing/engine-client';
import { eventually, useEngine } from '../../../testing/containers-fixture';

const names = Array.from({ length: 20 }, (_, i) => `race-${i}`);
const racersPerName = 10;
/** A container's cgroup is /svc/<id> in every hierarchy (cgroup v1 controllers, or v2's one). */
const cgroupRoot = '/sys/fs/cgroup';

type Outcome = { name: string; res: EngineResponse };

/** Every racer of every name sends its request at once; the answers, grouped by name. */
async function race(request: (name: string) => Promise<EngineResponse>): Promise<Map<string, number[]>> {
  const outcomes: Outcome[] = await Promise.all(
    names.flatMap((name) =>
      Array.from({ length: racersPerName }, async () => ({ name, res: await request(name) })),
    ),
  );
  const byName = new Map<string, number[]>(names.map((n) => [n, []]));
  for (const { name, res } of outcomes) {
    assert.ok(res.status < 500, `${name}: ${res.status} ${res.text()}`);
    byName.get(name)!.push(res.status);
  }
  return byName;
}

function count(statuses: number[], status: number): number {
  return statuses.filter((s) => s === status).length;
}

/** `ctr` against svcd's own containerd, in svcd's namespace. */
function ctr(svcd: SvcdInstance, ...args: string[]): string[] {
  const socket = join(svcd.dataRoot, 'containerd', 'containerd.sock');
  return execFileSync('ctr', ['-a', socket, '-n', 'svc', ...args], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
}

function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[1])
    .filter((m) => m?.startsWith(`${dir}/`));
}

/** What svcd, its containerd, runc and the mount table still hold of the containers `ids`. */
function leftovers(svcd: SvcdInstance, ids: string[]): Record<string, string[]> {
  const ours = (line: string) => ids.some((id) => line.includes(id));
  return {
    containerdContainers: ctr(svcd, 'containers', 'ls', '-q').filter(ours),
    containerdTasks: ctr(svcd, 'tasks', 'ls').filter(ours),
    snapshots: ctr(svcd, 'snapshots', 'ls').filter(ours),
    runcState: ids.filter((id) => existsSync(join(runcStateDir(svcd.dataRoot), id))),
    cgroups: readdirSync(cgroupRoot).flatMap((hierarchy) =>
      ids.map((id) => join(cgroupRoot, hierarchy, 'svc', id)).filter((dir) => existsSync(dir)),
    ),
    mounts: mountsUnder(svcd.dataRoot),
  };
}

const nothingLeft = {
  containerdContainers: [],
  containerdTasks: [],
  snapshots: [],
  runcState: [],
  cgroups: [],
  mounts: [],
};

/** What is left once the removals' teardowns, which finish after their answers, are done. */
function leftAtLast(svcd: SvcdInstance, ids: string[]): Promise<Record<string, string[]>> {
  return eventually(
    async () => leftovers(svcd, ids),
    (left) => Object.values(left).every((l) => l.length === 0),
    30_000,
  );
}

const conflict =
  /^Conflict\. The container name "\/(race-\d+)" is already in use by container "([0-9a-f]{64})"\. You have to remove \(or rename\) that container to be able to reuse that name\.$/;

describe('containers under concurrent clients', () => {
  const suite = useEngine();

  test('create/start/stop/delete with colliding names: one winner per name, no orphan', async () => {
    const { svcd } = suite();
    const mountsBefore = mountsUnder(svcd.dataRoot);
    assert.deepEqual(mountsBefore, [], 'nothing mounted under the data root before the race');

    // Create: each racer asks for the name; the step ends before the next so that a winner's
    // delete cannot free its name for a late racer (which would then rightly win it too).
    const created = new Map<string, string>();
    const creates = await Promise.all(
      names.flatMap((name) =>
        Array.from({ length: racersPerName }, async () => {
          const res = await svcd.request('POST', `/containers/create?name=${name}`, {
            body: { Image: 'busybox', Cmd: ['sleep', '300'] },
          });
          return { name, res };
        }),
      ),
    );
    for (const { name, res } of creates) {
      if (res.status === 201) {
        assert.equal(created.get(name), undefined, `a second create won ${name}`);
        created.set(name, res.json<{ Id: string }>().Id);
      }
    }
    assert.equal(created.size, names.length, 'every name has a winner');
    for (const { name, res } of creates) {
      if (res.status === 201) continue;
      assert.equal(res.status, 409, `${name}: ${res.status} ${res.text()}`);
      const m = conflict.exec(res.json<{ message: string }>().message);
      assert.ok(m, res.text());
      assert.deepEqual([m[1], m[2]], [name, created.get(name)], 'the conflict names the winner');
    }
    const ids = [...created.values()];

    const listed = (await svcd.request('GET', '/containers/json?all=1')).json<Array<{ Names: string[] }>>();
    assert.deepEqual(listed.map((c) => c.Names[0]).sort(), names.map((n) => `/${n}`).sort());

    // Start: one racer starts it, the others find it running (304).
    for (const [name, statuses] of await race((n) => svcd.request('POST', `/containers/${n}/start`))) {
      assert.deepEqual([count(statuses, 204), count(statuses, 304)], [1, racersPerName - 1], name);
    }
    // The probes see what running containers hold, so their empty answers at the end mean something.
    const running = leftovers(svcd, ids);
    assert.equal(running.containerdContainers.length, names.length);
    assert.equal(running.containerdTasks.length, names.length);
    assert.equal(running.runcState.length, names.length);
    assert.ok(running.cgroups.length >= names.length, running.cgroups.join('\n'));
    assert.ok(running.snapshots.length >= names.length, running.snapshots.join('\n'));
    assert.ok(running.mounts.length >= names.length, running.mounts.join('\n'));
    // Stop: every racer that found it running waits for the exit (204), the rest get 304.
    for (const [name, statuses] of await race((n) => svcd.request('POST', `/containers/${n}/stop?t=0`))) {
      assert.ok(count(statuses, 204) >= 1, `${name}: ${statuses}`);
      assert.equal(count(statuses, 204) + count(statuses, 304), racersPerName, `${name}: ${statuses}`);
    }
    for (const name of names) {
      const state = (await svcd.request('GET', `/containers/${name}/json`)).json<{
        State: { Status: string };
      }>();
      assert.equal(state.State.Status, 'exited', name);
    }
    // Delete: one racer removes it; the others find it gone (404) or being removed (409).
    for (const [name, statuses] of await race((n) => svcd.request('DELETE', `/containers/${n}`))) {
      assert.equal(count(statuses, 204), 1, `${name}: ${statuses}`);
      assert.equal(count(statuses, 204) + count(statuses, 404) + count(statuses, 409), racersPerName);
    }

    assert.deepEqual((await svcd.request('GET', '/containers/json?all=1')).json(), []);
    assert.deepEqual(await leftAtLast(svcd, ids), nothingLeft);
  });

  test('unsynchronised racers, each running the whole lifecycle: no 5xx, no orphan', async () => {
    const { svcd } = suite();
    const ids = new Set<string>();
    const statuses = new Map<number, number>();
    const note = (res: EngineResponse, step: string) => {
      assert.ok(res.status < 500, `${step}: ${res.status} ${res.text()}`);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    };
    const steps: Array<(name: string) => Promise<void>> = [
      async (name) => {
        const res = await svcd.request('POST', `/containers/create?name=${name}`, {
          body: { Image: 'busybox', Cmd: ['sleep', '300'] },
        });
        note(res, 'create');
        if (res.status === 201) ids.add(res.json<{ Id: string }>().Id);
      },
      async (name) => note(await svcd.request('POST', `/containers/${name}/start`), 'start'),
      async (name) => note(await svcd.request('POST', `/containers/${name}/stop?t=0`), 'stop'),
      async (name) => note(await svcd.request('DELETE', `/containers/${name}?force=1`), 'delete'),
    ];
    // Each racer runs create, start, stop, delete twice, going on through 404s and 409s as a
    // script would; racer k begins at step k mod 4, so every kind of call is in flight at once
    // on every name. Each racer ends with a delete, after the last create of its name.
    await Promise.all(
      names.flatMap((name) =>
        Array.from({ length: racersPerName }, async (_, k) => {
          for (let j = k % steps.length; j < 2 * steps.length; j++) await steps[j % steps.length](name);
        }),
      ),
    );
    console.log(
      `unsynchronised lifecycle: ${ids.size} containers created, answers ${JSON.stringify([...statuses])}`,
    );
    assert.deepEqual((await svcd.request('GET', '/containers/json?all=1')).json(), []);
    assert.deepEqual(await leftAtLast(svcd, [...ids]), nothingLeft);
  });
});

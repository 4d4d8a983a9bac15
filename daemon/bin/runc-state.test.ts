import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runcStateDir } from '../testing/svcd-harness';
import { eventually, expectStatus, inspect, run, useEngine } from '../testing/containers-fixture';
import { shimKeeperId } from '../engine/containers/shim-keeper';

/** runc's default root for svcd's namespace, shared by every containerd on the machine. */
const sharedRoot = '/run/containerd/runc/svc';

function runcStatus(root: string, id: string): string {
  const out = execFileSync('runc', ['--root', root, 'state', id], { encoding: 'utf8' });
  return (JSON.parse(out) as { status: string }).status;
}

describe("runc's state of an svcd's containers", () => {
  const suite = useEngine();

  test('lives under its own data root, survives a restart of svcd, and goes with the container', async () => {
    const { svcd } = suite();
    const root = runcStateDir(svcd.dataRoot);
    const id = await run(svcd, { Cmd: ['sleep', '300'] });
    assert.equal(runcStatus(root, id), 'running');
    assert.deepEqual(readdirSync(root).sort(), [id, shimKeeperId(svcd.dataRoot)].sort());
    assert.equal(existsSync(join(sharedRoot, id)), false, `${id} in ${sharedRoot}`);
    assert.equal(existsSync(join(sharedRoot, shimKeeperId(svcd.dataRoot))), false);

    await svcd.stop();
    await svcd.start();
    const state = (await inspect(svcd, id)).State;
    assert.equal(state.Status, 'running');
    assert.equal(runcStatus(root, id), 'running');
    const exec = expectStatus(
      await svcd.request('POST', `/containers/${id}/exec`, { body: { Cmd: ['true'] } }),
      201,
    ).json<{ Id: string }>().Id;
    expectStatus(await svcd.request('POST', `/exec/${exec}/start`, { body: { Detach: true } }), 200);

    expectStatus(await svcd.request('POST', `/containers/${id}/stop?t=0`), 204);
    // The exit is answered first; the task's deletion (runc's state with it) follows at once.
    const kept = await eventually(
      async () => existsSync(join(root, id)),
      (left) => !left,
    );
    assert.equal(kept, false, 'a stopped container keeps no runc state');
    expectStatus(await svcd.request('POST', `/containers/${id}/start`), 204);
    assert.equal(runcStatus(root, id), 'running');
    expectStatus(await svcd.request('DELETE', `/containers/${id}?force=1`), 204);
    assert.deepEqual(readdirSync(root), [shimKeeperId(svcd.dataRoot)]);
  });
});

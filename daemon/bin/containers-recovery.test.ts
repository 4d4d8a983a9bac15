import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { create, eventually, expectStatus, inspect, run, useEngine } from '../testing/containers-fixture';
import { processExists } from '../lib/process-exists';

describe('svcd killed with -9 while containers run', () => {
  const suite = useEngine();

  test('running containers survive, exits while svcd was down are recorded, policies still apply', async () => {
    const { svcd } = suite();
    const long = await run(svcd, { Cmd: ['sleep', '300'] }, 'long');
    const short = await run(svcd, { Cmd: ['sh', '-c', 'sleep 1; exit 9'] }, 'short');
    const restarting = await run(
      svcd,
      {
        Cmd: ['sh', '-c', 'sleep 1; exit 4'],
        HostConfig: { RestartPolicy: { Name: 'on-failure', MaximumRetryCount: 1 } },
      },
      'again',
    );
    const paused = await run(svcd, { Cmd: ['sleep', '300'] }, 'frozen');
    expectStatus(await svcd.request('POST', `/containers/${paused}/pause`), 204);
    const pid = (await inspect(svcd, long)).State.Pid;

    await svcd.kill9();
    await new Promise((r) => setTimeout(r, 1500));
    assert.ok(processExists(pid), "the container's process never noticed");
    await svcd.start();

    const longState = (await inspect(svcd, long)).State;
    assert.equal(longState.Status, 'running');
    assert.equal(longState.Pid, pid);
    const shortState = (await inspect(svcd, short)).State;
    assert.equal(shortState.Status, 'exited');
    assert.equal(shortState.ExitCode, 9);
    assert.equal((await inspect(svcd, paused)).State.Status, 'paused');
    const again = await eventually(
      () => inspect(svcd, restarting),
      (i) => i.RestartCount === 1 && i.State.Status === 'exited',
    );
    assert.equal(again.RestartCount, 1);
    assert.equal(again.State.ExitCode, 4);

    // The re-attached container is fully managed again.
    const wait = svcd.request('POST', `/containers/${long}/wait`);
    expectStatus(await svcd.request('POST', `/containers/${long}/kill`), 204);
    assert.equal((await wait).json<{ StatusCode: number }>().StatusCode, 137);
    expectStatus(await svcd.request('POST', `/containers/${paused}/unpause`), 204);
    const list = (await svcd.request('GET', '/containers/json')).json<Array<{ Names: string[] }>>();
    assert.deepEqual(
      list.map((c) => c.Names[0]),
      ['/frozen'],
    );
  });

  test('a restart of svcd by SIGTERM keeps containers running too', async () => {
    const { svcd } = suite();
    const id = await run(svcd, { Cmd: ['sleep', '300'] });
    await svcd.stop();
    await svcd.start();
    assert.equal((await inspect(svcd, id)).State.Status, 'running');
    const info = await svcd.request('GET', '/info');
    assert.ok(info.json<{ ContainersRunning: number }>().ContainersRunning >= 1);
  });

  test('a create svcd was killed in before it wrote the record is undone at the next start', async () => {
    const { svcd } = suite();
    // One whose create mounted its root filesystem (to make its working directory), one that did not.
    const id = await create(svcd, { Cmd: ['true'], WorkingDir: '/w' }, 'halfway');
    const plain = await create(svcd, { Cmd: ['true'] }, 'plainhalfway');
    const dir = join(svcd.dataRoot, 'containers', id);
    const mounted = () => readFileSync('/proc/self/mountinfo', 'utf8').includes(`${dir}/rootfs `);
    assert.ok(mounted());
    await svcd.kill9();
    // The record is the create's last step: without it, the state of a create killed just before.
    await rm(join(dir, 'config.json'));
    await rm(join(svcd.dataRoot, 'containers', plain, 'config.json'));
    await svcd.start();
    assert.equal(existsSync(dir), false);
    assert.equal(existsSync(join(svcd.dataRoot, 'containers', plain)), false);
    assert.equal(mounted(), false);
    expectStatus(await svcd.request('GET', `/containers/${id}/json`), 404);
    // Its snapshot and containerd's container went too: the same name creates and runs again.
    const again = await run(svcd, { Cmd: ['true'] }, 'halfway');
    assert.notEqual(again, id);
  });

  test('a stopped svcd leaves only running containers mounted; the others mount again when needed', async () => {
    const { svcd } = suite();
    const created = await create(svcd, { Cmd: ['true'] });
    const running = await run(svcd, { Cmd: ['sleep', '300'] });
    expectStatus(await svcd.request('GET', `/containers/${created}/archive?path=/etc/hostname`), 200);
    await svcd.stop();
    const mounted = readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((l) => l.split(' ')[4])
      .filter((m) => m?.startsWith(`${svcd.dataRoot}/`) && m.endsWith('/rootfs'));
    assert.ok(!mounted.some((m) => m.includes(created)), mounted.join('\n'));
    assert.ok(
      mounted.some((m) => m.includes(running)),
      mounted.join('\n'),
    );
    await svcd.start();
    expectStatus(await svcd.request('GET', `/containers/${created}/archive?path=/etc/hostname`), 200);
  });
});

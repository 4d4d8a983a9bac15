// Rootless svcd on the fallback storage driver: this kernel allows overlay in a user namespace,
// so `--storage-driver native` forces the snapshotter a kernel without it would get by probing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InfoResponse } from '../api/system-types';
import { create, expectStatus, inspect, run } from '../testing/containers-fixture';
import { importBusybox } from '../testing/busybox-image';
import { openStream } from '../server/testing/stream-client';
import { ensureRootlessUser, rootlessSkipReason, startRootlessSvcd } from '../testing/rootless-harness';
import { destroySvcd, SvcdInstance } from '../testing/svcd-harness';

const skip = rootlessSkipReason();

async function execOut(svcd: SvcdInstance, id: string, cmd: string[]): Promise<string> {
  const exec = expectStatus(
    await svcd.request('POST', `/containers/${id}/exec`, { body: { Cmd: cmd, AttachStdout: true } }),
    201,
  ).json<{ Id: string }>();
  const s = await openStream(svcd, 'POST', `/exec/${exec.Id}/start`, true, { Detach: false, Tty: false });
  await s.ended;
  return s.stdout;
}

describe('rootless svcd with --storage-driver native', { skip }, () => {
  let svcd: SvcdInstance;
  before(async () => {
    svcd = await startRootlessSvcd({ args: ['--storage-driver', 'native'] });
    await importBusybox(svcd);
  });
  after(() => destroySvcd(svcd));

  test('/info names the native driver and that it was forced', async () => {
    const info = expectStatus(await svcd.request('GET', '/info'), 200).json<InfoResponse>();
    assert.equal(info.Driver, 'native');
    assert.deepEqual(info.DriverStatus, [
      ['Snapshotter', 'containerd native'],
      ['Chosen', 'forced by --storage-driver'],
    ]);
  });

  test('a container runs, takes an exec that writes a file, logs, commits and is removed', async () => {
    const id = await run(svcd, { Cmd: ['sh', '-c', 'echo started; exec sleep 60'] });
    assert.equal((await inspect(svcd, id)).GraphDriver.Name, 'native');
    assert.equal(await execOut(svcd, id, ['sh', '-c', 'echo kept > /data.txt && cat /data.txt']), 'kept\n');
    const logs = await openStream(svcd, 'GET', `/containers/${id}/logs?stdout=1`, true);
    await logs.ended;
    assert.equal(logs.stdout, 'started\n');
    // The full copy compared with its base shows what an overlay's upper layer would.
    const changes = expectStatus(await svcd.request('GET', `/containers/${id}/changes`), 200);
    assert.deepEqual(changes.json(), [{ Path: '/data.txt', Kind: 1 }]);
    const sized = expectStatus(await svcd.request('GET', `/containers/${id}/json?size=1`), 200);
    assert.equal(sized.json<{ SizeRw: number }>().SizeRw, 'kept\n'.length);

    const commit = expectStatus(
      await svcd.request('POST', `/commit?container=${id}&repo=native-commit&tag=v1&pause=0`),
      201,
    ).json<{ Id: string }>();
    const image = expectStatus(await svcd.request('GET', '/images/native-commit:v1/json'), 200).json<{
      Id: string;
      GraphDriver: { Name: string };
      Size: number;
    }>();
    assert.equal(image.Id, commit.Id);
    assert.equal(image.GraphDriver.Name, 'native');
    // Each layer counts what its copy adds, not the copy: the new layer is the one small file.
    const busybox = expectStatus(await svcd.request('GET', '/images/busybox/json'), 200).json<{
      Size: number;
    }>();
    assert.ok(busybox.Size > 1_000_000, `busybox ${busybox.Size}`);
    assert.ok(image.Size - busybox.Size < 64 * 1024, `committed ${image.Size}, busybox ${busybox.Size}`);
    expectStatus(await svcd.request('DELETE', `/containers/${id}?force=1`), 204);

    // The layer containerd diffed from the full copies holds the file.
    const child = await run(svcd, { Image: 'native-commit:v1', Cmd: ['sleep', '60'] });
    assert.equal(await execOut(svcd, child, ['cat', '/data.txt']), 'kept\n');
    expectStatus(await svcd.request('DELETE', `/containers/${child}?force=1`), 204);
    expectStatus(await svcd.request('DELETE', '/images/native-commit:v1'), 200);
  });

  test('started on the same data root with the probed driver, it refuses rather than lose a container', async () => {
    const id = await create(svcd, { Cmd: ['true'] });
    await svcd.stop();
    const probed = new SvcdInstance(svcd.dir, { user: ensureRootlessUser() });
    // Never started: the container has nothing in containerd yet, only its record names the driver.
    const refusal = await probed.start().then(
      () => undefined,
      (err: Error) => err,
    );
    if (!refusal) await probed.stop();
    assert.match(
      String(refusal),
      /containers made with another storage driver \(1 with native\); start svcd with --storage-driver native/,
    );
    await svcd.start();
    expectStatus(await svcd.request('DELETE', `/containers/${id}`), 204);
  });
});

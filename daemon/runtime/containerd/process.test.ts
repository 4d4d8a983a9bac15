import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { InvalidParameterError, SystemError } from '../../api/errors';
import { ContainerdProcess } from './process';
import { minimalSpec, startTestContainerd, unpackBusybox, type TestContainerd } from './test-fixtures';
import { processExists } from '../../lib/process-exists';

describe('ContainerdProcess', () => {
  let ctd: TestContainerd;

  before(async () => {
    ctd = await startTestContainerd();
  });
  after(async () => {
    await ctd?.cleanup();
  });

  test('runs on its own socket with the generated config, and Version answers', async () => {
    const v = await ctd.client.version();
    assert.match(v.version, /^1\.6\./);
    const config = readFileSync(ctd.proc.configFile, 'utf8');
    assert.match(config, /disabled_plugins = \["io\.containerd\.grpc\.v1\.cri"\]/);
    assert.ok(config.includes(`address = ${JSON.stringify(ctd.proc.address)}`));
    assert.ok(ctd.proc.address.startsWith(ctd.dir));
  });

  test('kill -9 of containerd: it is restarted and answers again on the same client', async () => {
    const oldPid = ctd.proc.pid;
    assert.ok(oldPid);
    const exited = once(ctd.proc, 'exit');
    const restarted = once(ctd.proc, 'restarted');
    process.kill(oldPid, 'SIGKILL');
    const [exit] = await exited;
    assert.equal(exit.signal, 'SIGKILL');
    const [info] = await restarted;
    assert.notEqual(info.pid, oldPid);
    assert.equal(ctd.proc.pid, info.pid);
    // The long-lived client reconnects by itself.
    let version: string | undefined;
    for (let i = 0; i < 50 && !version; i++) {
      version = await ctd.client.version().then(
        (v) => v.version,
        () => new Promise<undefined>((r) => setTimeout(() => r(undefined), 100)),
      );
    }
    assert.match(version ?? '', /^1\.6\./);
  });

  test('stop leaves running containers and their shims alive; a new start sees them', async () => {
    const lease = await ctd.client.leases.create();
    const client = ctd.client.withLease(lease.id);
    const parent = await unpackBusybox(client, ctd.dir);
    const id = 'sleeper';
    const rootfs = await client.snapshots.prepare(id, parent);
    await client.containers.create({
      id,
      spec: minimalSpec(['/bin/busybox', 'sleep', '30']),
      snapshotKey: id,
      snapshotter: 'overlayfs',
    });
    await client.tasks.create(id, { rootfs });
    await client.tasks.start(id);
    const task = await client.tasks.get(id);
    assert.equal(task.status, 'RUNNING');
    const shimPid = Number(
      execFileSync('pgrep', [
        '-f',
        `containerd-shim-runc-v2 -namespace svc-test -id ${id} -address ${ctd.proc.address}`,
      ])
        .toString()
        .trim()
        .split('\n')[0],
    );
    assert.ok(shimPid > 0);

    const containerdPid = ctd.proc.pid;
    await ctd.proc.stop();
    assert.ok(containerdPid && !processExists(containerdPid), 'containerd stopped');
    assert.ok(processExists(shimPid), 'the shim survives');
    assert.ok(processExists(task.pid), 'the container process survives');

    await ctd.proc.start();
    const again = await client.tasks.get(id);
    assert.equal(again.status, 'RUNNING');
    assert.equal(again.pid, task.pid);

    const wait = client.tasks.wait(id);
    await client.tasks.kill(id, 9);
    assert.equal((await wait).exitStatus, 137);
    await client.tasks.delete(id);
    await client.containers.delete(id);
    await client.snapshots.remove(id);
    await ctd.client.leases.delete(lease.id);
  });

  test('a socket path too long for a unix socket is refused clearly', () => {
    assert.throws(
      () => new ContainerdProcess({ dir: ctd.dir, address: path.join('/tmp', 'x'.repeat(120), 'c.sock') }),
      (err: unknown) => err instanceof InvalidParameterError && /too long/.test(err.message),
    );
  });

  test('a missing containerd binary is reported clearly', () => {
    assert.throws(
      () => new ContainerdProcess({ dir: ctd.dir, binary: '/nonexistent/containerd' }),
      (err: unknown) =>
        err instanceof SystemError && /containerd not found.*apt-get install containerd/.test(err.message),
    );
  });
});

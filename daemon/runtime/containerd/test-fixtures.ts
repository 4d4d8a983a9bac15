// Shared by this folder's tests: an isolated containerd, a busybox layer, a minimal OCI spec.
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sha256 } from '../../lib/digest';
import { ContainerdClient } from './client';
import { ContainerdProcess } from './process';
import type { Descriptor } from './types';

export interface TestContainerd {
  dir: string;
  proc: ContainerdProcess;
  client: ContainerdClient;
  cleanup(): Promise<void>;
}

/** A containerd of its own under a temp dir, with a client in a fresh namespace. */
export async function startTestContainerd(): Promise<TestContainerd> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-ctd-'));
  const proc = new ContainerdProcess({ dir, stopTimeoutMs: 5000 });
  await proc.start();
  const client = ContainerdClient.connect(proc.address, 'svc-test');
  await client.namespaces.ensure('svc-test');
  return {
    dir,
    proc,
    client,
    async cleanup() {
      await removeTasks(client).catch(() => undefined);
      client.close();
      await proc.stop();
      unmountUnder(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Tasks a failed test left running would outlive the test: kill and delete them. */
async function removeTasks(client: ContainerdClient): Promise<void> {
  for (const task of await client.tasks.list()) {
    const exited = client.tasks.wait(task.containerId);
    await client.tasks.kill(task.containerId, 9, { all: true }).catch(() => undefined);
    await exited.catch(() => undefined);
    await client.tasks.delete(task.containerId).catch(() => undefined);
  }
}

/** Lingering mounts (rootfs, snapshot views) must go before rm, which would descend into them. */
function unmountUnder(dir: string): void {
  const targets = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .filter((target) => target.startsWith(`${dir}/`))
    .reverse();
  for (const target of targets) spawnSync('umount', ['-l', target]);
}

export const layerMediaType = 'application/vnd.oci.image.layer.v1.tar';

/** An uncompressed layer holding the host's static /bin/busybox, made with the tar CLI. */
export async function busyboxLayer(workDir: string): Promise<{ tar: Buffer; descriptor: Descriptor }> {
  const src = path.join(workDir, 'layer-src');
  mkdirSync(path.join(src, 'bin'), { recursive: true });
  await promisify(execFile)('cp', ['/bin/busybox', path.join(src, 'bin', 'busybox')]);
  const { stdout } = await promisify(execFile)(
    'tar',
    ['-C', src, '--owner=0', '--group=0', '--numeric-owner', '-cf', '-', 'bin'],
    { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
  );
  const tar = stdout as Buffer;
  return { tar, descriptor: { mediaType: layerMediaType, digest: sha256(tar), size: tar.length } };
}

/**
 * Puts the busybox layer in the content store and unpacks it into a committed snapshot; returns
 * the snapshot's name. The client should hold a lease so nothing is collected meanwhile.
 */
export async function unpackBusybox(client: ContainerdClient, workDir: string): Promise<string> {
  const { tar, descriptor } = await busyboxLayer(workDir);
  await client.content.write(`layer-${descriptor.digest}`, tar, {
    expected: descriptor.digest,
    size: descriptor.size,
  });
  const name = `layer-${descriptor.digest}`;
  const key = `extract-${Date.now()}`;
  const mounts = await client.snapshots.prepare(key);
  await client.diff.apply(descriptor, mounts);
  await client.snapshots.commit(name, key);
  return name;
}

/** A minimal OCI runtime spec running `args` as root in fresh namespaces on the task's rootfs. */
export function minimalSpec(args: string[], hostname = 'svc-test'): object {
  const caps = ['CAP_CHOWN', 'CAP_DAC_OVERRIDE', 'CAP_FOWNER', 'CAP_KILL', 'CAP_SETGID', 'CAP_SETUID'];
  return {
    ociVersion: '1.0.2',
    process: {
      terminal: false,
      user: { uid: 0, gid: 0 },
      args,
      env: ['PATH=/bin'],
      cwd: '/',
      capabilities: { bounding: caps, effective: caps, permitted: caps },
      noNewPrivileges: true,
    },
    root: { path: 'rootfs', readonly: false },
    hostname,
    mounts: [
      { destination: '/proc', type: 'proc', source: 'proc', options: ['nosuid', 'noexec', 'nodev'] },
      {
        destination: '/dev',
        type: 'tmpfs',
        source: 'tmpfs',
        options: ['nosuid', 'strictatime', 'mode=755', 'size=65536k'],
      },
      { destination: '/sys', type: 'sysfs', source: 'sysfs', options: ['nosuid', 'noexec', 'nodev', 'ro'] },
    ],
    linux: {
      namespaces: [{ type: 'pid' }, { type: 'ipc' }, { type: 'uts' }, { type: 'mount' }, { type: 'network' }],
      maskedPaths: ['/proc/kcore', '/proc/keys'],
      readonlyPaths: ['/proc/sys', '/proc/sysrq-trigger'],
    },
  };
}

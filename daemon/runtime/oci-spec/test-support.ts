// Test support: a host description, an error assertion, and a minimal busybox root filesystem with a user `app` (1000:1000) that is also a
// member of the group `extra` (2000).
import { createBehaviours, parseApiVersion, type CreateBehaviours } from '../../api/versions';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidParameterError } from '../../api/errors';
import { ALL_CAPABILITIES } from './capabilities';
import type { CgroupSupport, HostFacts } from './host-facts';

export const BUSYBOX_APPLETS = [
  'sh',
  'echo',
  'cat',
  'id',
  'hostname',
  'env',
  'pwd',
  'touch',
  'chown',
  'ls',
  'grep',
  'mount',
  'sleep',
];

/** Creates `<bundle>/rootfs` in a new temporary bundle directory and returns both paths. */
export function makeBusyboxBundle(prefix = 'svc-oci-'): { bundle: string; rootfs: string } {
  const bundle = mkdtempSync(join(tmpdir(), prefix));
  const rootfs = join(bundle, 'rootfs');
  for (const dir of ['bin', 'etc', 'tmp', 'home/app']) mkdirSync(join(rootfs, dir), { recursive: true });
  copyFileSync('/bin/busybox', join(rootfs, 'bin/busybox'));
  for (const applet of BUSYBOX_APPLETS) symlinkSync('busybox', join(rootfs, 'bin', applet));
  writeFileSync(
    join(rootfs, 'etc/passwd'),
    'root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000:App:/home/app:/bin/sh\nnobody:x:65534:65534::/:/bin/false\n',
  );
  writeFileSync(join(rootfs, 'etc/group'), 'root:x:0:\napp:x:1000:\nextra:x:2000:app\nstaff:x:50:\n');
  return { bundle, rootfs };
}

/** A host that supports every cgroup limit, with 2 CPUs and 1 memory node. */
export function fullHost(overrides: Partial<HostFacts> = {}, cgroup: Partial<CgroupSupport> = {}): HostFacts {
  const all: CgroupSupport = {
    memoryLimit: true,
    swapLimit: true,
    memoryReservation: true,
    memorySwappiness: true,
    oomKillDisable: true,
    cpuShares: true,
    cpuCfs: true,
    cpuRealtime: true,
    cpuset: true,
    blkioWeight: true,
    blkioWeightDevice: true,
    blkioReadBps: true,
    blkioWriteBps: true,
    blkioReadIOps: true,
    blkioWriteIOps: true,
    pids: true,
    kernelMemory: false,
  };
  return {
    cgroup: { ...all, ...cgroup },
    cpusetCpus: '0-1',
    cpusetMems: '0',
    cpuCount: 2,
    capabilities: ALL_CAPABILITIES,
    hostname: 'testhost',
    initBinary: '/usr/bin/tini-static',
    appArmor: false,
    ...overrides,
  };
}

/** Asserts that `fn` throws an InvalidParameterError whose message matches. */
export function assertInvalid(fn: () => unknown, message: string | RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof InvalidParameterError, `expected InvalidParameterError, got ${String(err)}`);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

/** How a request of the given API version reads a create body. */
export function behavioursAt(version: string): CreateBehaviours {
  const parsed = parseApiVersion(version);
  if (!parsed) throw new Error(`not an API version: ${version}`);
  return createBehaviours(parsed);
}

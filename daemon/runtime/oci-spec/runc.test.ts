// The spec as runc 1.1 really runs it: busybox containers in a fresh network namespace with
// loopback only, checked through what the container itself sees.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  rmdirSync,
  writeFileSync,
  readFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ContainerConfig, HostConfig } from '../../api/container-types';
import { type BuildSpecInput, buildSpec } from './build-spec';
import { buildHostnameFile, buildHostsFile } from './etc-hosts';
import { buildResolvConf } from './resolv-conf';
import { ALL_CAPABILITIES } from './capabilities';
import { type HostFacts, readHostFacts } from './host-facts';
import { specToJson } from './spec-json';
import { behavioursAt, makeBusyboxBundle } from './test-support';

const RUNC = ['/usr/sbin/runc', '/usr/bin/runc'].find((path) => existsSync(path));
const skip = process.getuid?.() !== 0 ? 'needs root' : !RUNC ? 'runc is not installed' : false;
const CGROUP_ROOT = '/sys/fs/cgroup';
const MiB = 1024 * 1024;

let host: HostFacts;
let runcRoot: string;
let work: string;
const cgroupParent = `/svc-oci-test-${process.pid}`;
const bundles: string[] = [];
let counter = 0;

interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Builds the spec for a busybox container, runs it to completion with runc, removes it. */
function run(
  config: ContainerConfig,
  hostConfig: HostConfig = {},
  extra: Partial<BuildSpecInput> = {},
): RunResult {
  const { bundle, rootfs } = makeBusyboxBundle('svc-runc-');
  bundles.push(bundle);
  const id = `svc-oci-test-${process.pid}-${++counter}`;
  const { spec } = buildSpec({
    id,
    config,
    hostConfig: { NetworkMode: 'none', ...hostConfig },
    rootfsPath: rootfs,
    behaviours: behavioursAt('1.41'),
    host,
    defaultCgroupParent: cgroupParent,
    ...extra,
  });
  writeFileSync(join(bundle, 'config.json'), specToJson(spec));
  try {
    const result = spawnSync(RUNC as string, ['--root', runcRoot, 'run', '--bundle', bundle, id], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 20_000,
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  } finally {
    spawnSync(RUNC as string, ['--root', runcRoot, 'delete', '--force', id], { stdio: 'ignore' });
  }
}

const sh = (script: string): ContainerConfig => ({ Cmd: ['sh', '-c', script] });

describe('runc runs the built spec', { skip }, () => {
  before(async () => {
    host = await readHostFacts();
    runcRoot = mkdtempSync(join(tmpdir(), 'svc-runc-root-'));
    work = mkdtempSync(join(tmpdir(), 'svc-runc-work-'));
  });

  after(() => {
    for (const controller of existsSync(CGROUP_ROOT) ? readdirSync(CGROUP_ROOT) : []) {
      const dir = join(CGROUP_ROOT, controller, cgroupParent);
      if (existsSync(dir)) rmdirSync(dir);
    }
    for (const dir of [...bundles, runcRoot, work]) rmSync(dir, { recursive: true, force: true });
  });

  test('User "app" and "1000:1000" are resolved from the rootfs', () => {
    const byName = run({ Cmd: ['id'], User: 'app' });
    assert.equal(byName.stdout.trim(), 'uid=1000(app) gid=1000(app) groups=2000(extra)', byName.stderr);
    const byIds = run({ Cmd: ['id'], User: '1000:1000' });
    assert.match(byIds.stdout, /^uid=1000\(app\) gid=1000\(app\)/, byIds.stderr);
    assert.doesNotMatch(byIds.stdout, /extra/);
    const withGroupAdd = run({ Cmd: ['id', '-G'], User: '1000:1000' }, { GroupAdd: ['staff'] });
    assert.equal(withGroupAdd.stdout.trim(), '1000 50');
  });

  test('hostname, env and working directory', () => {
    const result = run({
      ...sh('hostname; pwd; env'),
      Hostname: 'box1',
      Env: ['FOO=bar'],
      WorkingDir: '/srv/app',
    });
    const [hostname, cwd, ...env] = result.stdout.trim().split('\n');
    assert.equal(hostname, 'box1', result.stderr);
    assert.equal(cwd, '/srv/app');
    assert.ok(env.includes('FOO=bar'));
    assert.ok(env.includes('HOSTNAME=box1'));
    assert.ok(env.includes('PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'));
  });

  test('a read-only root filesystem refuses writes', () => {
    const result = run(sh('touch /newfile'), { ReadonlyRootfs: true });
    assert.notEqual(result.status, 0);
    assert.match(result.stderr + result.stdout, /Read-only file system/);
    assert.equal(run(sh('touch /newfile')).status, 0);
  });

  test('the memory limit is the cgroup limit the container sees', () => {
    const result = run(sh('cat /sys/fs/cgroup/memory/memory.limit_in_bytes'), { Memory: 32 * MiB });
    assert.equal(result.stdout.trim(), String(32 * MiB), result.stderr);
  });

  test('dropped capabilities are gone: CapDrop CHOWN makes chown fail', () => {
    assert.equal(run(sh('touch /tmp/f && chown 1000 /tmp/f')).status, 0);
    const dropped = run(sh('touch /tmp/f && chown 1000 /tmp/f'), { CapDrop: ['CHOWN'] });
    assert.notEqual(dropped.status, 0);
    assert.match(dropped.stderr + dropped.stdout, /Operation not permitted/);
  });

  test('a Tmpfs mount is present with its options', () => {
    const result = run(sh('grep " /run " /proc/mounts'), { Tmpfs: { '/run': 'size=1m' } });
    assert.match(
      result.stdout,
      /^tmpfs \/run tmpfs rw,nosuid,nodev,noexec,relatime,size=1024k/,
      result.stderr,
    );
  });

  test('a read-only bind refuses writes, a read-write one shows them on the host', () => {
    const ro = run(sh('touch /data/x'), { Binds: [`${work}:/data:ro`] });
    assert.notEqual(ro.status, 0);
    assert.match(ro.stderr + ro.stdout, /Read-only file system/);
    const rw = run(sh('echo hi > /data/y'), { Binds: [`${work}:/data`] });
    assert.equal(rw.status, 0, rw.stderr);
    assert.equal(readFileSync(join(work, 'y'), 'utf8'), 'hi\n');
  });

  test('network mode none: loopback only; ulimits; init as PID 1', () => {
    const result = run(sh('ls /sys/class/net; ulimit -n; cat /proc/1/cmdline | tr "\\0" " "'), {
      Ulimits: [{ Name: 'nofile', Soft: 321, Hard: 321 }],
      Init: true,
    });
    const lines = result.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(0, 2), ['lo', '321'], result.stderr);
    assert.match(lines[2], /^\/sbin\/docker-init -- sh -c/);
  });

  test('Privileged gets every capability and the host devices', () => {
    const result = run(sh('grep CapEff /proc/self/status; ls /dev/kmsg'), { Privileged: true });
    const mask = host.capabilities.reduce(
      (bits, cap) => bits | (1n << BigInt(ALL_CAPABILITIES.indexOf(cap))),
      0n,
    );
    const all = mask.toString(16).padStart(16, '0');
    assert.equal(result.stdout, `CapEff:\t${all}\n/dev/kmsg\n`, result.stderr);
    const plain = run(sh('grep CapEff /proc/self/status; ls /dev/kmsg'));
    assert.match(plain.stdout, /^CapEff:\t00000000a80425fb\n$/);
  });

  test('CPU quota and pids limit reach the cgroup', () => {
    const result = run(sh('cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/pids/pids.max'), {
      NanoCpus: 5e8,
      PidsLimit: 50,
    });
    assert.equal(result.stdout, '50000\n50\n', result.stderr);
  });

  test('a custom seccomp profile filters system calls', () => {
    const profile = {
      defaultAction: 'SCMP_ACT_ALLOW',
      syscalls: [{ names: ['mkdir', 'mkdirat'], action: 'SCMP_ACT_ERRNO', errnoRet: 1 }],
    };
    const filtered = run(sh('mkdir /tmp/d'), { SecurityOpt: [`seccomp=${JSON.stringify(profile)}`] });
    assert.notEqual(filtered.status, 0);
    assert.match(filtered.stderr + filtered.stdout, /Operation not permitted/);
    assert.equal(run(sh('mkdir /tmp/d'), { SecurityOpt: ['seccomp=unconfined'] }).status, 0);
  });

  test('no-new-privileges reaches the process', () => {
    const result = run(sh('grep NoNewPrivs /proc/self/status'), { SecurityOpt: ['no-new-privileges'] });
    assert.equal(result.stdout, 'NoNewPrivs:\t1\n', result.stderr);
  });

  test('the generated /etc/hosts, /etc/resolv.conf and /etc/hostname are what the container reads', () => {
    const files = {
      hostsPath: join(work, 'hosts'),
      resolvConfPath: join(work, 'resolv.conf'),
      hostnamePath: join(work, 'hostname'),
    };
    writeFileSync(files.hostsPath, buildHostsFile({ hostname: 'web', extraHosts: ['db:10.0.0.5'] }));
    writeFileSync(
      files.resolvConfPath,
      buildResolvConf({ hostResolvConf: 'nameserver 127.0.0.53\nsearch lan\n', hostNetwork: false }),
    );
    writeFileSync(files.hostnamePath, buildHostnameFile('web'));
    const result = run(
      { ...sh('cat /etc/hostname /etc/resolv.conf; grep db /etc/hosts; hostname'), Hostname: 'web' },
      { ReadonlyRootfs: true },
      { files },
    );
    assert.equal(
      result.stdout,
      'web\nsearch lan\nnameserver 8.8.8.8\nnameserver 8.8.4.4\n10.0.0.5\tdb\nweb\n',
      result.stderr,
    );
  });
});

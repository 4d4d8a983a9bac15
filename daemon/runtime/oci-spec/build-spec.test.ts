import assert from 'node:assert/strict';
import { existsSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SystemError } from '../../api/errors';
import type { ContainerConfig, HostConfig } from '../../api/container-types';
import { type BuildSpecInput, type BuiltSpec, buildSpec } from './build-spec';
import { ALL_CAPABILITIES, DEFAULT_CAPABILITIES } from './capabilities';
import { DEFAULT_MASKED_PATHS } from './default-mounts';
import { inheritVolumesFrom, parseVolumesFrom, planMounts, resolveMounts } from './mount-plan';
import { ociResources } from './oci-resources';
import type { OciMount, OciSpec } from './oci-types';
import { resolveUser } from './process-user';
import { DEFAULT_SECCOMP_PROFILE, ociSeccomp } from './seccomp';
import { specToJson } from './spec-json';
import { assertInvalid, behavioursAt, fullHost, makeBusyboxBundle } from './test-support';

const ID = 'c0ffee'.padEnd(64, '0');
const MiB = 1024 * 1024;
let bundle: string;
let rootfs: string;

before(() => ({ bundle, rootfs } = makeBusyboxBundle()));
after(() => rmSync(bundle, { recursive: true, force: true }));

function buildFull(
  config: ContainerConfig,
  hostConfig: HostConfig = {},
  extra: Partial<BuildSpecInput> = {},
): BuiltSpec {
  return buildSpec({
    id: ID,
    config,
    hostConfig,
    rootfsPath: rootfs,
    behaviours: behavioursAt('1.41'),
    host: fullHost(),
    ...extra,
  });
}

/** The spec of a container running `sh` unless the config says otherwise. */
function build(
  config: ContainerConfig,
  hostConfig: HostConfig = {},
  extra: Partial<BuildSpecInput> = {},
): OciSpec {
  return buildFull({ Cmd: ['sh'], ...config }, hostConfig, extra).spec;
}

const mountAt = (spec: OciSpec, destination: string): OciMount | undefined =>
  spec.mounts.find((m) => m.destination === destination);
const nsTypes = (spec: OciSpec) =>
  spec.linux.namespaces.map((n) => (n.path ? `${n.type}=${n.path}` : n.type));

describe('process', () => {
  test('args from Entrypoint and Cmd with the image defaults', () => {
    const image = { Entrypoint: ['/entry'], Cmd: ['default'] };
    const args = (config: ContainerConfig) => buildFull(config, {}, { image }).spec.process.args;
    assert.deepEqual(args({}), ['/entry', 'default']);
    assert.deepEqual(args({ Cmd: ['x', 'y'] }), ['/entry', 'x', 'y']);
    assert.deepEqual(args({ Cmd: 'echo hi' }), ['/entry', 'echo hi']);
    assert.deepEqual(args({ Entrypoint: ['/other'] }), ['/other']);
    assert.deepEqual(args({ Entrypoint: '' }), ['default']);
    assert.deepEqual(args({ Entrypoint: [], Cmd: ['ls'] }), ['ls']);
  });
  test('no command at all is refused', () => {
    assertInvalid(() => build({ Cmd: null }), 'No command specified');
  });
  test('env: PATH default, HOSTNAME, TERM with a tty, image env merged, own env wins', () => {
    const spec = build({ Env: ['A=1', 'PATH=/custom'], Tty: true }, {}, { image: { Env: ['A=0', 'B=2'] } });
    assert.deepEqual(spec.process.env, [
      'PATH=/custom',
      `HOSTNAME=${ID.slice(0, 12)}`,
      'TERM=xterm',
      'A=1',
      'B=2',
    ]);
    assert.equal(spec.process.terminal, true);
    assert.deepEqual(build({}).process.env, [
      'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      `HOSTNAME=${ID.slice(0, 12)}`,
    ]);
  });
  test('working directory defaults to / and is created in the rootfs', () => {
    assert.equal(build({}).process.cwd, '/');
    assert.equal(build({ WorkingDir: '/srv/app' }).process.cwd, '/srv/app');
    assert.ok(existsSync(join(rootfs, 'srv/app')));
  });
  test('oomScoreAdj, noNewPrivileges, rlimits', () => {
    const spec = build(
      {},
      {
        OomScoreAdj: 500,
        SecurityOpt: ['no-new-privileges'],
        Ulimits: [
          { Name: 'nofile', Soft: 100, Hard: 200 },
          { Name: 'core', Soft: -1, Hard: -1 },
        ],
      },
    );
    assert.equal(spec.process.oomScoreAdj, 500);
    assert.equal(spec.process.noNewPrivileges, true);
    assert.deepEqual(spec.process.rlimits, [
      { type: 'RLIMIT_NOFILE', soft: 100, hard: 200 },
      { type: 'RLIMIT_CORE', soft: -1, hard: -1 },
    ]);
    assert.match(specToJson(spec), /"soft": 18446744073709551615,\s+"hard": 18446744073709551615/);
  });
});

describe('user', () => {
  test('name, uid, uid:gid, name:group, supplementary groups by membership, GroupAdd', () => {
    assert.deepEqual(resolveUser(rootfs, '', null), { uid: 0, gid: 0 });
    assert.deepEqual(resolveUser(rootfs, 'app', null), { uid: 1000, gid: 1000, additionalGids: [2000] });
    assert.deepEqual(resolveUser(rootfs, '1000', null), { uid: 1000, gid: 1000, additionalGids: [2000] });
    assert.deepEqual(resolveUser(rootfs, '1000:1000', null), { uid: 1000, gid: 1000 });
    assert.deepEqual(resolveUser(rootfs, 'app:staff', null), { uid: 1000, gid: 50 });
    assert.deepEqual(resolveUser(rootfs, '4242', null), { uid: 4242, gid: 0 });
    assert.deepEqual(resolveUser(rootfs, '4242:4343', ['staff', '77']), {
      uid: 4242,
      gid: 4343,
      additionalGids: [50, 77],
    });
  });
  test('unknown names are refused', () => {
    assertInvalid(
      () => resolveUser(rootfs, 'ghost', null),
      'unable to find user ghost: no matching entries in passwd file',
    );
    assertInvalid(
      () => resolveUser(rootfs, 'app:ghosts', null),
      'unable to find group ghosts: no matching entries in group file',
    );
    assertInvalid(() => resolveUser(rootfs, 'app', ['ghosts']), 'Unable to find group ghosts');
  });
  test('a symlinked /etc/passwd is resolved inside the rootfs, never on the host', () => {
    const { bundle: other, rootfs: evil } = makeBusyboxBundle();
    try {
      rmSync(join(evil, 'etc/passwd'));
      mkdirSync(join(evil, 'lib'));
      writeFileSync(join(evil, 'lib/passwd'), 'inside:x:77:77::/:/bin/sh\n');
      // Absolute and ../ targets both stay in the rootfs: /../../lib/passwd is /lib/passwd there.
      symlinkSync('/../../../lib/passwd', join(evil, 'etc/passwd'));
      assert.deepEqual(resolveUser(evil, 'inside', null), { uid: 77, gid: 77 });
      assertInvalid(() => resolveUser(evil, 'daemon', null), /unable to find user daemon/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('capabilities', () => {
  test('Docker default set; CapAdd/CapDrop; ALL; Privileged', () => {
    assert.deepEqual(build({}).process.capabilities.bounding, DEFAULT_CAPABILITIES);
    const tweaked = build({}, { CapAdd: ['net_admin'], CapDrop: ['CAP_CHOWN', 'kill'] }).process.capabilities;
    assert.ok(tweaked.effective.includes('CAP_NET_ADMIN'));
    assert.ok(!tweaked.effective.includes('CAP_CHOWN') && !tweaked.effective.includes('CAP_KILL'));
    assert.deepEqual(build({}, { CapDrop: ['ALL'], CapAdd: ['CHOWN'] }).process.capabilities.permitted, [
      'CAP_CHOWN',
    ]);
    const all = build({}, { CapAdd: ['ALL'], CapDrop: ['SYS_ADMIN'] }).process.capabilities.bounding;
    assert.equal(all.length, 40);
    assert.ok(!all.includes('CAP_SYS_ADMIN'));
    assert.equal(build({}, { Privileged: true }).process.capabilities.bounding.length, 41);
    assert.deepEqual(build({}).process.capabilities.inheritable, []);
  });
  test('Privileged and ALL stop at the capabilities svcd holds; naming one it lacks is refused', () => {
    const spec = build(
      {},
      { Privileged: true },
      { host: fullHost({ capabilities: ALL_CAPABILITIES.slice(0, 38) }) },
    );
    assert.equal(spec.process.capabilities.bounding.length, 38);
    const host = fullHost({ capabilities: ALL_CAPABILITIES.filter((cap) => cap !== 'CAP_SYS_RESOURCE') });
    const all = (hostConfig: HostConfig) => build({}, hostConfig, { host }).process.capabilities.bounding;
    assert.equal(all({ CapAdd: ['ALL'] }).length, 40);
    assertInvalid(
      () => all({ CapAdd: ['SYS_RESOURCE'] }),
      'capability CAP_SYS_RESOURCE cannot be granted: svcd does not hold it on this host',
    );
  });
});

describe('seccomp', () => {
  test("Docker's default profile for the container's capabilities, unless privileged or unconfined", () => {
    const names = (spec: OciSpec) => spec.linux.seccomp?.syscalls?.flatMap((s) => s.names);
    assert.deepEqual(build({}).linux.seccomp, ociSeccomp(DEFAULT_SECCOMP_PROFILE, DEFAULT_CAPABILITIES));
    assert.ok(names(build({}, { CapAdd: ['SYS_ADMIN'] }))?.includes('mount'));
    assert.equal(build({}, { Privileged: true }).linux.seccomp, undefined);
    assert.equal(build({}, { SecurityOpt: ['seccomp=unconfined'] }).linux.seccomp, undefined);
    assert.equal(build({}, {}, { defaultSeccomp: 'unconfined' }).linux.seccomp, undefined);
    const own = { defaultAction: 'SCMP_ACT_LOG' };
    const ownSpec = build(
      {},
      { SecurityOpt: [`seccomp=${JSON.stringify(own)}`] },
      { defaultSeccomp: 'unconfined' },
    );
    assert.deepEqual(ownSpec.linux.seccomp, { defaultAction: 'SCMP_ACT_LOG', syscalls: [] });
  });
});

describe('namespaces', () => {
  test('defaults: a new namespace of each kind, no user or cgroup namespace', () => {
    assert.deepEqual(nsTypes(build({})), ['mount', 'pid', 'ipc', 'uts', 'network']);
  });
  test('host modes leave the namespace out; container modes join the given paths', () => {
    const spec = build({}, { PidMode: 'host', IpcMode: 'host', UTSMode: 'host', NetworkMode: 'host' });
    assert.deepEqual(nsTypes(spec), ['mount']);
    assert.equal(spec.hostname, undefined);
    const joined = build(
      {},
      { PidMode: 'container:a', IpcMode: 'container:b', NetworkMode: 'container:c', CgroupnsMode: 'private' },
      {
        namespaces: { pid: '/proc/1/ns/pid', ipc: '/proc/2/ns/ipc', network: '/proc/3/ns/net' },
        shmPath: '/tmp/shm-b',
      },
    );
    assert.deepEqual(nsTypes(joined), [
      'mount',
      'pid=/proc/1/ns/pid',
      'ipc=/proc/2/ns/ipc',
      'uts',
      'network=/proc/3/ns/net',
      'cgroup',
    ]);
    assert.deepEqual(mountAt(joined, '/dev/shm'), {
      destination: '/dev/shm',
      type: 'bind',
      source: '/tmp/shm-b',
      options: ['rbind', 'rprivate'],
    });
  });
  test('a network namespace made by the engine is joined; none makes a fresh one', () => {
    assert.deepEqual(
      nsTypes(build({}, { NetworkMode: 'bridge' }, { namespaces: { network: '/run/netns/x' } })).at(-1),
      'network=/run/netns/x',
    );
    assert.deepEqual(nsTypes(build({}, { NetworkMode: 'none' })).at(-1), 'network');
  });
  test('a container mode without its resolved path is a system error', () => {
    assert.throws(() => build({}, { PidMode: 'container:a' }), SystemError);
  });
});

describe('hostname and domainname', () => {
  test('hostname defaults to the short ID, or the host name on the host network', () => {
    assert.equal(build({}).hostname, ID.slice(0, 12));
    assert.equal(build({ Hostname: 'web' }).hostname, 'web');
    assert.equal(build({}, { NetworkMode: 'host' }).hostname, 'testhost');
  });
  test('Domainname goes to the kernel.domainname sysctl', () => {
    assert.deepEqual(build({ Hostname: 'web', Domainname: 'example.com' }).linux.sysctl, {
      'kernel.domainname': 'example.com',
    });
  });
});

describe('mounts', () => {
  test('kernel filesystems, /dev/shm with ShmSize, masked and read-only paths', () => {
    const spec = build({}, { ShmSize: 8 * MiB });
    assert.deepEqual(
      spec.mounts.slice(0, 6).map((m) => m.destination),
      ['/proc', '/dev', '/dev/pts', '/sys', '/sys/fs/cgroup', '/dev/mqueue'],
    );
    assert.ok(mountAt(spec, '/sys')?.options?.includes('ro'));
    assert.ok(mountAt(spec, '/sys/fs/cgroup')?.options?.includes('ro'));
    assert.ok(mountAt(spec, '/dev/shm')?.options?.includes(`size=${8 * MiB}`));
    assert.ok(mountAt(build({}), '/dev/shm')?.options?.includes(`size=${64 * MiB}`));
    assert.deepEqual(spec.linux.maskedPaths, DEFAULT_MASKED_PATHS);
    assert.ok(spec.linux.readonlyPaths?.includes('/proc/sys'));
    assert.equal(mountAt(build({}, { IpcMode: 'none' }), '/dev/shm'), undefined);
    assert.equal(mountAt(build({}, { IpcMode: 'host' }), '/dev/shm')?.source, '/dev/shm');
  });
  test('Privileged: no masked or read-only paths, /sys writable, every device allowed', () => {
    const spec = build({}, { Privileged: true });
    assert.deepEqual([spec.linux.maskedPaths, spec.linux.readonlyPaths], [[], []]);
    assert.ok(!mountAt(spec, '/sys')?.options?.includes('ro'));
    assert.deepEqual(spec.linux.resources.devices, [{ allow: true, access: 'rwm' }]);
    assert.ok(spec.linux.devices?.some((d) => d.path === '/dev/null'));
  });
  test('Binds, Mounts and Tmpfs become OCI mounts, parents first', () => {
    const source = join(bundle, 'created-by-bind');
    const spec = build(
      {},
      {
        Binds: [`${source}:/data/sub:ro`, `${bundle}:/data:rshared`],
        Mounts: [{ Type: 'bind', Source: bundle, Target: '/flat', BindOptions: { NonRecursive: true } }],
        Tmpfs: { '/run': 'exec,size=1m' },
      },
    );
    assert.ok(existsSync(source), 'legacy Binds create their missing source');
    const users = spec.mounts.filter((m) => ['/data', '/data/sub', '/flat', '/run'].includes(m.destination));
    assert.deepEqual(
      users.map((m) => m.destination),
      ['/data', '/flat', '/run', '/data/sub'],
    );
    assert.deepEqual(mountAt(spec, '/data/sub'), {
      destination: '/data/sub',
      type: 'bind',
      source,
      options: ['rbind', 'rprivate', 'ro'],
    });
    assert.deepEqual(mountAt(spec, '/data')?.options, ['rbind', 'rshared']);
    assert.deepEqual(mountAt(spec, '/flat')?.options, ['bind', 'rprivate']);
    assert.deepEqual(mountAt(spec, '/run'), {
      destination: '/run',
      type: 'tmpfs',
      source: 'tmpfs',
      options: ['nosuid', 'nodev', 'exec', 'size=1m', 'rprivate'],
    });
    assert.equal(spec.linux.rootfsPropagation, 'shared');
  });
  test('volumes must be resolved first; resolved volumes and VolumesFrom are bound', async () => {
    assert.throws(() => build({}, { Binds: ['data:/data'] }), SystemError);
    const inherited = inheritVolumesFrom(parseVolumesFrom('other:ro'), [
      {
        Type: 'bind',
        Source: '/srv/shared',
        Destination: '/shared',
        ReadOnly: false,
        Propagation: 'rprivate',
        Recursive: true,
        CreateSource: false,
      },
    ]);
    const plan = planMounts({
      config: { Volumes: { '/anon': {}, '/data': {} } },
      hostConfig: { Binds: ['data:/data'] },
      image: { Volumes: { '/shared': {}, '/img': {} } },
      volumesFrom: inherited,
    });
    assert.deepEqual(
      plan.map((m) => `${m.Type}:${m.Destination}`),
      ['volume:/data', 'bind:/shared', 'volume:/anon', 'volume:/img'],
    );
    const names: string[] = [];
    const mounts = await resolveMounts(plan, async (request) => {
      const name = request.Name || `anon${names.length}`;
      names.push(name);
      return { Name: name, Source: `/var/lib/svc/volumes/${name}/_data`, Driver: 'local' };
    });
    const spec = build({}, { Binds: ['data:/data'] }, { mounts });
    assert.deepEqual(names, ['data', 'anon1', 'anon2']);
    assert.equal(mountAt(spec, '/data')?.source, '/var/lib/svc/volumes/data/_data');
    assert.deepEqual(mountAt(spec, '/shared')?.options, ['rbind', 'rprivate', 'ro']);
  });
  test('the /etc files are bound, read-only with a read-only rootfs, unless a user mount replaces them', () => {
    const files = { hostsPath: '/c/hosts', resolvConfPath: '/c/resolv.conf', hostnamePath: '/c/hostname' };
    const spec = build({}, {}, { files });
    assert.deepEqual(mountAt(spec, '/etc/hosts'), {
      destination: '/etc/hosts',
      type: 'bind',
      source: '/c/hosts',
      options: ['rbind', 'rprivate'],
    });
    assert.equal(mountAt(spec, '/etc/resolv.conf')?.source, '/c/resolv.conf');
    assert.equal(mountAt(spec, '/etc/hostname')?.source, '/c/hostname');
    const ro = build({}, { ReadonlyRootfs: true }, { files });
    assert.equal(ro.root.readonly, true);
    assert.ok(mountAt(ro, '/etc/hosts')?.options?.includes('ro'));
    const ownHosts = join(bundle, 'my-hosts');
    writeFileSync(ownHosts, '10.0.0.1 mine\n');
    const replaced = build({}, { Binds: [`${ownHosts}:/etc/hosts:ro`, `${bundle}:/etc`] }, { files });
    assert.deepEqual(
      replaced.mounts.filter((m) => m.destination.startsWith('/etc')).map((m) => [m.destination, m.source]),
      [
        ['/etc', bundle],
        ['/etc/hosts', ownHosts],
        ['/etc/resolv.conf', '/c/resolv.conf'],
        ['/etc/hostname', '/c/hostname'],
      ],
    );
  });
  test('a user mount at /dev replaces the /dev mounts; one at /sys/fs only its own destination', () => {
    const spec = build({}, { Binds: ['/dev:/dev', `${bundle}:/sys/fs`] });
    assert.deepEqual(
      spec.mounts.map((m) => m.destination),
      ['/proc', '/sys', '/sys/fs/cgroup', '/dev', '/sys/fs'],
    );
  });
  test('Init binds tini at /sbin/docker-init and runs it first', () => {
    const spec = build({ Cmd: ['sleep', '1'] }, { Init: true });
    assert.deepEqual(spec.process.args, ['/sbin/docker-init', '--', 'sleep', '1']);
    assert.deepEqual(mountAt(spec, '/sbin/docker-init'), {
      destination: '/sbin/docker-init',
      type: 'bind',
      source: '/usr/bin/tini-static',
      options: ['bind', 'ro'],
    });
  });
});

describe('resources', () => {
  test('memory, swap, reservation, swappiness, OOM killer', () => {
    const spec = build(
      {},
      { Memory: 64 * MiB, MemoryReservation: 32 * MiB, MemorySwappiness: 10, OomKillDisable: true },
    );
    assert.deepEqual(spec.linux.resources.memory, {
      limit: 64 * MiB,
      reservation: 32 * MiB,
      swap: 128 * MiB,
      swappiness: 10,
      disableOOMKiller: true,
    });
    assert.equal(build({}, { Memory: 64 * MiB, MemorySwap: -1 }).linux.resources.memory?.swap, -1);
    assert.equal(build({}).linux.resources.memory, undefined);
  });
  test('cpu: shares, period/quota, NanoCpus, cpusets', () => {
    assert.deepEqual(
      build({}, { CpuShares: 512, CpuPeriod: 50000, CpuQuota: 25000, CpusetCpus: '1', CpusetMems: '0' }).linux
        .resources.cpu,
      {
        shares: 512,
        period: 50000,
        quota: 25000,
        cpus: '1',
        mems: '0',
      },
    );
    assert.deepEqual(build({}, { NanoCpus: 1.5e9 }).linux.resources.cpu, { period: 100000, quota: 150000 });
  });
  test('pids, blkio weight, device rules, cgroup path', () => {
    const spec = build(
      {},
      {
        PidsLimit: 100,
        BlkioWeight: 300,
        Devices: [{ PathOnHost: '/dev/null', PathInContainer: '/dev/mynull', CgroupPermissions: 'rw' }],
        DeviceCgroupRules: ['c 42:* rm'],
        CgroupParent: 'tenants',
      },
    );
    assert.deepEqual(spec.linux.resources.pids, { limit: 100 });
    assert.equal(build({}, { PidsLimit: -1 }).linux.resources.pids?.limit, -1);
    assert.equal(spec.linux.resources.blockIO?.weight, 300);
    assert.deepEqual(
      spec.linux.devices?.map((d) => [d.path, d.type, d.major, d.minor]),
      [['/dev/mynull', 'c', 1, 3]],
    );
    assert.deepEqual(spec.linux.resources.devices?.slice(-2), [
      { allow: true, type: 'c', major: 1, minor: 3, access: 'rw' },
      { allow: true, type: 'c', major: 42, access: 'rm' },
    ]);
    assert.deepEqual(spec.linux.resources.devices?.[0], { allow: false, access: 'rwm' });
    assert.equal(spec.linux.cgroupsPath, `tenants/${ID}`);
    assert.equal(build({}).linux.cgroupsPath, `/svc/${ID}`);
  });
  test('sysctls pass through', () => {
    assert.deepEqual(build({}, { Sysctls: { 'net.ipv4.ip_forward': '1' } }).linux.sysctl, {
      'net.ipv4.ip_forward': '1',
    });
  });
  test('warnings come back with the spec', () => {
    const { warnings } = buildFull({ Cmd: ['sh'] }, { KernelMemory: 8 * MiB });
    assert.equal(warnings.length, 2);
  });
});

test('ociResources alone gives the limits for an update', () => {
  assert.deepEqual(ociResources({ Memory: 64 * MiB, MemorySwap: -1, CpuShares: 256, PidsLimit: 20 }), {
    memory: { limit: 64 * MiB, swap: -1 },
    cpu: { shares: 256 },
    pids: { limit: 20 },
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ContainerConfig, HostConfig } from '../../api/container-types';
import { parseSignal } from './signals';
import { assertInvalid, behavioursAt, fullHost } from './test-support';
import { validateCreate } from './validate-create';
import { validateResources } from './validate-resources';

const MiB = 1024 * 1024;

function create(
  config: ContainerConfig,
  hostConfig: HostConfig = {},
  extra: { name?: string; apiVersion?: string } = {},
) {
  return validateCreate({
    config: { Image: 'busybox', Cmd: ['true'], ...config },
    hostConfig,
    behaviours: behavioursAt(extra.apiVersion ?? '1.41'),
    host: fullHost(),
    name: extra.name,
  });
}

const withHost = (hostConfig: HostConfig) => () => create({}, hostConfig);

describe('container name', () => {
  test("accepts the spec's names and strips the slash", () => {
    assert.equal(create({}, {}, { name: '/web_1-a' }).name, 'web_1-a');
    assert.equal(create({}, {}, { name: 'a' }).name, 'a');
    assert.equal(create({}, {}, { name: '_x' }).name, '_x');
  });
  test('refuses names outside /?[a-zA-Z0-9_-]+', () => {
    for (const name of ['web.1', 'a b', 'ab/c', 'ab!', '//a']) {
      assertInvalid(
        () => create({}, {}, { name }),
        `Invalid container name (${name}), only [a-zA-Z0-9_-] are allowed`,
      );
    }
  });
});

describe('hostname', () => {
  test('RFC 1123 names pass, others are refused', () => {
    assert.equal(create({ Hostname: 'web-1.example.com' }).config.Hostname, 'web-1.example.com');
    for (const bad of ['-web', 'web_1', 'a..b', 'x'.repeat(64)]) {
      assertInvalid(() => create({ Hostname: bad }), `invalid hostname format: ${bad}`);
    }
  });
  test('before 1.24 a dotted Hostname is split into Hostname and Domainname', () => {
    const old = create({ Hostname: 'web.example.com' }, {}, { apiVersion: '1.23' }).config;
    assert.deepEqual([old.Hostname, old.Domainname], ['web', 'example.com']);
    assert.equal(create({ Hostname: 'web_1' }, {}, { apiVersion: '1.23' }).config.Hostname, 'web_1');
    const now = create({ Hostname: 'web.example.com' }).config;
    assert.deepEqual([now.Hostname, now.Domainname], ['web.example.com', '']);
  });
});

describe('command, working dir, env, stop signal', () => {
  test('no command at 1.24+ is a 400, before it create succeeds', () => {
    const run = (apiVersion: string) =>
      validateCreate({
        config: {},
        hostConfig: {},
        behaviours: behavioursAt(apiVersion),
        host: fullHost(),
        image: { Cmd: null },
      });
    assertInvalid(() => run('1.24'), 'No command specified');
    assert.doesNotThrow(() => run('1.23'));
  });
  test('image defaults are merged into the config', () => {
    const { config } = validateCreate({
      config: { Env: ['A=1'], Cmd: null },
      hostConfig: {},
      behaviours: behavioursAt('1.41'),
      host: fullHost(),
      image: { Env: ['A=0', 'B=2'], Cmd: ['sh'], Entrypoint: ['/init'], WorkingDir: '/srv', User: 'app' },
    });
    assert.deepEqual(config.Env, ['A=1', 'B=2']);
    assert.deepEqual(
      [config.Entrypoint, config.Cmd, config.WorkingDir, config.User],
      [['/init'], ['sh'], '/srv', 'app'],
    );
  });
  test('relative WorkingDir is refused', () => {
    assertInvalid(
      () => create({ WorkingDir: 'srv' }),
      "the working directory 'srv' is invalid, it needs to be an absolute path",
    );
  });
  test('env entries need a name', () => {
    assertInvalid(() => create({ Env: ['=x'] }), 'invalid environment variable: =x');
  });
  test('StopSignal names with or without SIG, numbers, and RT signals', () => {
    assert.equal(parseSignal('SIGTERM'), 15);
    assert.equal(parseSignal('kill'), 9);
    assert.equal(parseSignal(10), 10);
    assert.equal(parseSignal('RTMIN+2'), 36);
    assert.equal(parseSignal('SIGRTMAX-1'), 63);
    assertInvalid(() => create({ StopSignal: 'SIGFOO' }), 'Invalid signal: SIGFOO');
    assertInvalid(() => create({ StopSignal: '0' }), 'Invalid signal: 0');
  });
});

describe('healthcheck', () => {
  test('durations are 0 or at least 1 ms', () => {
    assert.doesNotThrow(() =>
      create({ Healthcheck: { Test: ['CMD', 'true'], Interval: 0, Timeout: 1_000_000 } }),
    );
    assertInvalid(
      () => create({ Healthcheck: { Interval: 999_999 } }),
      'Interval in Healthcheck cannot be less than 1ms',
    );
    assertInvalid(
      () => create({ Healthcheck: { Timeout: -1 } }),
      'Timeout in Healthcheck cannot be less than 1ms',
    );
    assertInvalid(
      () => create({ Healthcheck: { StartPeriod: 5 } }),
      'StartPeriod in Healthcheck cannot be less than 1ms',
    );
    assertInvalid(
      () => create({ Healthcheck: { Retries: -1 } }),
      'Retries in Healthcheck cannot be negative',
    );
  });
});

describe('restart policy, auto remove, log config', () => {
  test('valid policies pass', () => {
    for (const Name of ['', 'no', 'always', 'unless-stopped'])
      assert.doesNotThrow(withHost({ RestartPolicy: { Name } }));
    assert.doesNotThrow(withHost({ RestartPolicy: { Name: 'on-failure', MaximumRetryCount: 3 } }));
  });
  test('invalid policies are refused with dockerd messages', () => {
    assertInvalid(withHost({ RestartPolicy: { Name: 'sometimes' } }), "invalid restart policy 'sometimes'");
    assertInvalid(
      withHost({ RestartPolicy: { Name: 'always', MaximumRetryCount: 2 } }),
      "maximum retry count cannot be used with restart policy 'always'",
    );
    assertInvalid(
      withHost({ RestartPolicy: { Name: 'on-failure', MaximumRetryCount: -1 } }),
      'maximum retry count cannot be negative',
    );
    assertInvalid(
      withHost({ AutoRemove: true, RestartPolicy: { Name: 'always' } }),
      "can't create 'AutoRemove' container with restart policy",
    );
  });
  test('AutoRemove is ignored before 1.25', () => {
    const { hostConfig } = create(
      {},
      { AutoRemove: true, RestartPolicy: { Name: 'always' } },
      { apiVersion: '1.24' },
    );
    assert.equal(hostConfig.AutoRemove, false);
  });
  test('json-file and none are accepted, other drivers refused', () => {
    assert.deepEqual(create({}).hostConfig.LogConfig, { Type: 'json-file', Config: {} });
    assert.doesNotThrow(
      withHost({ LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '3' } } }),
    );
    assert.doesNotThrow(withHost({ LogConfig: { Type: 'none' } }));
    assertInvalid(
      withHost({ LogConfig: { Type: 'syslog' } }),
      /logging driver "syslog" is not supported.*json-file, none/,
    );
    // A name Docker has not built in is a plugin to dockerd, and is answered as a missing one.
    assertInvalid(
      withHost({ LogConfig: { Type: 'asdf' } }),
      'error looking up logging plugin asdf: plugin "asdf" not found',
    );
    assertInvalid(
      withHost({ LogConfig: { Type: 'json-file', Config: { foo: '1' } } }),
      "unknown log opt 'foo' for json-file log driver",
    );
    assertInvalid(
      withHost({ LogConfig: { Type: 'json-file', Config: { 'max-size': 'lots' } } }),
      /invalid size for max-size/,
    );
  });
});

describe('ports', () => {
  test('port keys and host ports are checked', () => {
    assert.doesNotThrow(() =>
      create(
        { ExposedPorts: { '80/tcp': {}, '53/udp': {} } },
        { PortBindings: { '80/tcp': [{ HostPort: '8080' }] } },
      ),
    );
    assertInvalid(() => create({ ExposedPorts: { 'http/tcp': {} } }), 'invalid port specification: "http"');
    assertInvalid(
      withHost({ PortBindings: { '80/tcp': [{ HostPort: '99999' }] } }),
      'invalid port specification: "99999"',
    );
  });
});

describe('security options and capabilities', () => {
  test('no-new-privileges, seccomp=unconfined, apparmor=unconfined, label=disable pass', () => {
    for (const opt of [
      'no-new-privileges',
      'no-new-privileges=true',
      'no-new-privileges:false',
      'seccomp=unconfined',
      'apparmor=unconfined',
      'label=disable',
    ]) {
      assert.doesNotThrow(withHost({ SecurityOpt: [opt] }), opt);
    }
  });
  test('broken seccomp profiles, AppArmor profiles without AppArmor and unknown keys are refused', () => {
    assert.doesNotThrow(withHost({ SecurityOpt: ['seccomp={"defaultAction":"SCMP_ACT_ALLOW"}'] }));
    assertInvalid(
      withHost({ SecurityOpt: ['seccomp=/etc/profile.json'] }),
      /^Decoding seccomp profile failed: /,
    );
    assertInvalid(
      withHost({ SecurityOpt: ['seccomp={"defaultAction":"SCMP_ACT_NOPE"}'] }),
      'invalid seccomp profile: unknown action "SCMP_ACT_NOPE"',
    );
    const both = {
      defaultAction: 'SCMP_ACT_ALLOW',
      syscalls: [{ name: 'a', names: ['b'], action: 'SCMP_ACT_ERRNO' }],
    };
    assertInvalid(
      withHost({ SecurityOpt: [`seccomp=${JSON.stringify(both)}`] }),
      "invalid seccomp profile: both 'name' and 'names' are specified, use either 'name' or 'names'",
    );
    assertInvalid(
      withHost({ SecurityOpt: ['apparmor=docker-default'] }),
      /AppArmor is not enabled on this host/,
    );
    assertInvalid(withHost({ SecurityOpt: ['foo=bar'] }), 'invalid --security-opt 2: "foo=bar"');
    assertInvalid(withHost({ SecurityOpt: ['nonsense'] }), 'invalid --security-opt 1: "nonsense"');
    assertInvalid(
      withHost({ SecurityOpt: ['no-new-privileges=maybe'] }),
      'invalid --security-opt 2: "no-new-privileges=maybe"',
    );
  });
  test('SELinux labels are accepted with a warning on this host', () => {
    assert.deepEqual(create({}, { SecurityOpt: ['label=user:USER'] }).warnings, [
      'SELinux is not enabled on this host: label options are ignored',
    ]);
  });
  test('capability names with and without CAP_, any case, ALL', () => {
    assert.doesNotThrow(withHost({ CapAdd: ['net_admin', 'CAP_SYS_TIME', 'ALL'], CapDrop: ['chown'] }));
    assertInvalid(withHost({ CapAdd: ['CAP_FLY'] }), 'unknown capability: "CAP_FLY"');
  });
});

describe('ulimits and sysctls', () => {
  test('ulimits', () => {
    assert.doesNotThrow(
      withHost({
        Ulimits: [
          { Name: 'nofile', Soft: 1024, Hard: 2048 },
          { Name: 'core', Soft: -1, Hard: -1 },
        ],
      }),
    );
    assertInvalid(withHost({ Ulimits: [{ Name: 'files', Soft: 1, Hard: 1 }] }), 'invalid ulimit type: files');
    assertInvalid(
      withHost({ Ulimits: [{ Name: 'nofile', Soft: 10, Hard: 5 }] }),
      'ulimit soft limit must be less than or equal to hard limit: 10 > 5',
    );
  });
  test('only namespaced sysctls, and net.* not with the host network', () => {
    assert.doesNotThrow(
      withHost({
        Sysctls: { 'net.ipv4.ip_forward': '1', 'kernel.shmmax': '1000', 'fs.mqueue.msg_max': '20' },
      }),
    );
    assertInvalid(
      withHost({ Sysctls: { 'vm.swappiness': '1' } }),
      'sysctl "vm.swappiness" is not in a separate kernel namespace',
    );
    assertInvalid(
      withHost({ NetworkMode: 'host', Sysctls: { 'net.ipv4.ip_forward': '1' } }),
      'sysctl "net.ipv4.ip_forward" is not allowed in the hosts network namespace',
    );
    assertInvalid(
      withHost({ IpcMode: 'host', Sysctls: { 'kernel.sem': '1' } }),
      'sysctl "kernel.sem" is not allowed in the hosts ipc namespace',
    );
  });
});

describe('namespace modes', () => {
  test('valid modes pass', () => {
    for (const hostConfig of [
      { PidMode: 'host' },
      { PidMode: 'container:abc' },
      { IpcMode: 'shareable' },
      { IpcMode: 'container:abc' },
      { IpcMode: 'none' },
      { UTSMode: 'host' },
      { UsernsMode: 'host' },
      { CgroupnsMode: 'private' },
      { NetworkMode: 'none' },
      { NetworkMode: 'mynet' },
    ]) {
      assert.doesNotThrow(withHost(hostConfig), JSON.stringify(hostConfig));
    }
  });
  test('invalid modes and conflicts are refused', () => {
    assertInvalid(withHost({ PidMode: 'bogus' }), 'invalid PID mode: bogus');
    assertInvalid(withHost({ IpcMode: 'container:' }), 'invalid IPC mode: container:');
    assertInvalid(withHost({ UTSMode: 'other' }), 'invalid UTS mode: other');
    assertInvalid(withHost({ UsernsMode: 'private' }), 'invalid USER mode: private');
    assertInvalid(withHost({ CgroupnsMode: 'x' }), 'invalid cgroup namespace mode: x');
    assertInvalid(
      () => create({ Hostname: 'h' }, { UTSMode: 'host' }),
      'Conflicting options: hostname and the UTS mode',
    );
    assertInvalid(
      () => create({ Hostname: 'h' }, { NetworkMode: 'container:x' }),
      'Conflicting options: hostname and the network mode',
    );
    assertInvalid(
      withHost({ NetworkMode: 'container:x', Dns: ['1.1.1.1'] }),
      'Conflicting options: dns and the network mode',
    );
  });
});

describe('mounts', () => {
  test('the four Binds forms, propagation and z/Z', () => {
    assert.doesNotThrow(
      withHost({
        Binds: ['/tmp:/a', '/tmp:/b:ro', '/tmp:/c:rw,rshared,z', 'data:/d', 'data2:/e:ro,nocopy', '/f'],
      }),
    );
  });
  test('bad Binds are refused with dockerd messages', () => {
    assertInvalid(withHost({ Binds: ['/tmp:/a:bogus'] }), 'invalid mode: bogus');
    assertInvalid(withHost({ Binds: ['/tmp:/a:ro,rw'] }), 'invalid mode: ro,rw');
    assertInvalid(withHost({ Binds: ['/a:ro'] }), "invalid volume specification: '/a:ro'");
    assertInvalid(withHost({ Binds: ['a:b:c:d'] }), "invalid volume specification: 'a:b:c:d'");
    assertInvalid(withHost({ Binds: ['/tmp:rel'] }), "invalid mount path: 'rel' mount path must be absolute");
    assertInvalid(withHost({ Binds: ['/tmp:/'] }), "invalid specification: destination can't be '/'");
    assertInvalid(
      withHost({ Binds: ['bad$name:/x'] }),
      /includes invalid characters for a local volume name/,
    );
    assertInvalid(withHost({ Binds: ['/tmp:/a', '/usr:/a'] }), 'Duplicate mount point: /a');
  });
  test('Mounts of type bind, volume and tmpfs', () => {
    assert.doesNotThrow(
      withHost({
        Mounts: [
          {
            Type: 'bind',
            Source: '/tmp',
            Target: '/a',
            ReadOnly: true,
            BindOptions: { Propagation: 'rslave' },
          },
          { Type: 'volume', Source: 'vol', Target: '/b' },
          { Type: 'tmpfs', Target: '/c', TmpfsOptions: { SizeBytes: 1024 * 1024, Mode: 0o1777 } },
        ],
      }),
    );
    assertInvalid(
      withHost({ Mounts: [{ Type: 'bind', Source: '/does/not/exist', Target: '/a' }] }),
      'invalid mount config for type "bind": bind source path does not exist: /does/not/exist',
    );
    assertInvalid(
      withHost({ Mounts: [{ Type: 'bind', Target: '/a' }] }),
      'invalid mount config for type "bind": field Source must not be empty',
    );
    assertInvalid(
      withHost({ Mounts: [{ Type: 'tmpfs', Source: 'x', Target: '/a' }] }),
      'invalid mount config for type "tmpfs": field Source must not be specified',
    );
    assertInvalid(
      withHost({ Mounts: [{ Type: 'volume', Target: '' }] }),
      'invalid mount config for type "volume": field Target must not be empty',
    );
    assertInvalid(
      withHost({ Mounts: [{ Type: 'npipe', Target: '/a' }] }),
      'invalid mount config for type "npipe": mount type unknown',
    );
    assertInvalid(
      withHost({ Binds: ['/tmp:/a'], Mounts: [{ Type: 'tmpfs', Target: '/a' }] }),
      'Duplicate mount point: /a',
    );
  });
  test('Tmpfs map options', () => {
    assert.doesNotThrow(withHost({ Tmpfs: { '/run': 'rw,exec,size=64m,mode=1777' } }));
    assertInvalid(withHost({ Tmpfs: { '/run': 'bogus' } }), 'invalid tmpfs option "bogus"');
    assertInvalid(withHost({ Tmpfs: { run: '' } }), "invalid mount path: 'run' mount path must be absolute");
  });
  test('VolumesFrom modes', () => {
    assert.doesNotThrow(withHost({ VolumesFrom: ['other', 'other2:ro', 'other3:rw'] }));
    assertInvalid(withHost({ VolumesFrom: ['other:xx'] }), 'invalid mode: xx');
  });
});

describe('devices', () => {
  test('host devices and cgroup rules', () => {
    assert.doesNotThrow(
      withHost({
        Devices: [{ PathOnHost: '/dev/null', PathInContainer: '/dev/mynull', CgroupPermissions: 'rw' }],
      }),
    );
    assert.doesNotThrow(withHost({ DeviceCgroupRules: ['c 1:3 rwm', 'b *:* m', 'a *:* rwm'] }));
    assertInvalid(
      withHost({ Devices: [{ PathOnHost: '/dev/null', CgroupPermissions: 'rwx' }] }),
      '/dev/null invalid device mode: rwx',
    );
    assertInvalid(
      withHost({ Devices: [{ PathOnHost: '/dev/nope' }] }),
      'error gathering device information while adding custom device "/dev/nope": no such file or directory',
    );
    assertInvalid(withHost({ DeviceCgroupRules: ['c 1:3 rwx'] }), "invalid device cgroup format 'c 1:3 rwx'");
    assertInvalid(
      withHost({ DeviceRequests: [{ Capabilities: [['gpu']] }] }),
      'could not select device driver "" with capabilities: [[gpu]]',
    );
  });
});

describe('resources', () => {
  test('create defaults: ShmSize 64 MiB, MemorySwap twice Memory, CpuShares clamped', () => {
    const { hostConfig } = create({}, { Memory: 32 * MiB, CpuShares: 1_000_000 });
    assert.equal(hostConfig.ShmSize, 64 * MiB);
    assert.equal(hostConfig.MemorySwap, 64 * MiB);
    assert.equal(hostConfig.CpuShares, 262144);
  });
  test('memory rules', () => {
    assert.doesNotThrow(withHost({ Memory: 32 * MiB, MemorySwap: -1 }));
    assertInvalid(withHost({ Memory: 1 * MiB }), 'Minimum memory limit allowed is 6MB');
    assertInvalid(
      withHost({ Memory: 32 * MiB, MemorySwap: 16 * MiB }),
      'Minimum memoryswap limit should be larger than memory limit, see usage',
    );
    assertInvalid(
      withHost({ MemorySwap: 16 * MiB }),
      'You should always set the Memory limit when using Memoryswap limit, see usage',
    );
    assertInvalid(
      withHost({ MemorySwappiness: 101 }),
      'Invalid value: 101, valid memory swappiness range is 0-100',
    );
    assertInvalid(withHost({ MemoryReservation: MiB }), 'Minimum memory reservation allowed is 6MB');
    assertInvalid(
      withHost({ Memory: 16 * MiB, MemoryReservation: 32 * MiB }),
      'Minimum memory limit can not be less than memory reservation limit, see usage',
    );
    assertInvalid(withHost({ KernelMemory: MiB }), 'Minimum kernel memory limit allowed is 4MB');
    assertInvalid(
      withHost({ OomScoreAdj: 1001 }),
      'Invalid value 1001, range for oom score adj is [-1000, 1000]',
    );
    assertInvalid(withHost({ ShmSize: -1 }), 'SHM size can not be less than 0');
  });
  test('kernel memory cannot be enforced: warned and discarded', () => {
    const { hostConfig, warnings } = create({}, { KernelMemory: 64 * MiB });
    assert.equal(hostConfig.KernelMemory, 0);
    assert.deepEqual(warnings, [
      'Specifying a kernel memory limit is deprecated and will be removed in a future release.',
      'Your kernel does not support kernel memory limit capabilities or the cgroup is not mounted. Limitation discarded.',
    ]);
  });
  test('limits this host cannot enforce are discarded with a warning', () => {
    const host = fullHost({}, { swapLimit: false, blkioWeight: false, pids: false, memorySwappiness: false });
    const { resources, warnings } = validateResources(
      { Memory: 32 * MiB, MemorySwap: 64 * MiB, BlkioWeight: 500, PidsLimit: 10, MemorySwappiness: 10 },
      host,
    );
    assert.equal(resources.MemorySwap, -1);
    assert.equal(resources.BlkioWeight, 0);
    assert.equal(resources.PidsLimit, null);
    assert.equal(resources.MemorySwappiness, null);
    assert.deepEqual(warnings, [
      'Your kernel does not support swap limit capabilities or the cgroup is not mounted. Memory limited without swap.',
      'Your kernel does not support memory swappiness capabilities or the cgroup is not mounted. Memory swappiness discarded.',
      'Your kernel does not support Block I/O weight or the cgroup is not mounted. Weight discarded.',
      'Your kernel does not support PIDs limit capabilities or the cgroup is not mounted. PIDs limit discarded.',
    ]);
  });
  test('OOM killer disabled without a memory limit is a warning', () => {
    assert.deepEqual(create({}, { OomKillDisable: true }).warnings, [
      'OOM killer is disabled for the container, but no memory limit is set, this can result in the system running out of resources.',
    ]);
  });
  test('cpu rules', () => {
    assert.doesNotThrow(withHost({ NanoCpus: 1.5e9, CpuShares: 512, CpusetCpus: '0-1', CpusetMems: '0' }));
    assertInvalid(
      withHost({ NanoCpus: 1e9, CpuPeriod: 100000 }),
      'Conflicting options: Nano CPUs and CPU Period cannot both be set',
    );
    assertInvalid(
      withHost({ NanoCpus: 1e9, CpuQuota: 50000 }),
      'Conflicting options: Nano CPUs and CPU Quota cannot both be set',
    );
    assertInvalid(
      withHost({ NanoCpus: 3e9 }),
      'Range of CPUs is from 0.01 to 2.00, as there are only 2 CPUs available',
    );
    assertInvalid(
      withHost({ CpuPeriod: 500 }),
      'CPU cfs period can not be less than 1ms (i.e. 1000) or larger than 1s (i.e. 1000000)',
    );
    assertInvalid(withHost({ CpuQuota: 500 }), 'CPU cfs quota can not be less than 1ms (i.e. 1000)');
    assertInvalid(
      withHost({ CpusetCpus: '0-7' }),
      'Requested CPUs are not available - requested 0-7, available: 0-1',
    );
    assertInvalid(withHost({ CpusetCpus: 'a-b' }), 'Invalid value a-b for cpuset cpus');
    assertInvalid(
      withHost({ CpusetMems: '1' }),
      'Requested memory nodes are not available - requested 1, available: 0',
    );
  });
  test('blkio rules', () => {
    assertInvalid(withHost({ BlkioWeight: 5 }), 'Range of blkio weight is from 10 to 1000');
    assertInvalid(withHost({ BlkioWeight: 1001 }), 'Range of blkio weight is from 10 to 1000');
    assertInvalid(
      withHost({ BlkioDeviceReadBps: [{ Path: '/dev/null', Rate: 1 }] }),
      '/dev/null is not a block device',
    );
    assertInvalid(withHost({ IOMaximumBandwidth: 1 }), /Invalid QoS settings/);
  });
});

describe('refused host capabilities', () => {
  test('runtime, isolation, storage options, volume drivers, init without tini', () => {
    assertInvalid(withHost({ Runtime: 'crun' }), 'Unknown runtime specified crun');
    assertInvalid(
      withHost({ Isolation: 'hyperv' }),
      `Invalid isolation: "hyperv" - linux only supports 'default'`,
    );
    assertInvalid(withHost({ StorageOpt: { size: '1G' } }), /--storage-opt is supported only/);
    assertInvalid(
      () =>
        validateCreate({
          config: { Cmd: ['true'] },
          hostConfig: { Init: true },
          behaviours: behavioursAt('1.41'),
          host: fullHost({ initBinary: undefined }),
        }),
      'Init was requested but no init binary (tini) is installed on this host',
    );
    assertInvalid(withHost({ ExtraHosts: ['db:not-an-ip'] }), 'invalid IP address in add-host: "not-an-ip"');
    assertInvalid(withHost({ Dns: ['dns.example'] }), 'dns.example is not an ip address');
  });
});

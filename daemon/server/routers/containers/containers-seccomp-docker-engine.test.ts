// Seccomp confinement compared with Docker Engine 20.10: the same system calls, made by a static
// probe (testing/syscall-probe.c, built here with gcc) inside containers run by the docker CLI
// on svcd and on a private dockerd, answer the same, for Docker's default capabilities, added
// capabilities, seccomp=unconfined, --privileged, and in an exec. Then svcd's --seccomp-profile.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { dockerdMissing } from '../../../testing/dockerd-peer';
import { destroySvcd, startSvcd, type SvcdInstance } from '../../../testing/svcd-harness';
import { importBusybox } from '../../../testing/busybox-image';
import { type DockerCli, useDockerCliOn } from '../../../testing/docker-cli';
import { useEnginePair } from '../../testing/engine-pair';
import { buildStaticC, gccMissing } from '../../../testing/static-c';

const CALLS = [
  'fork',
  'clone-user',
  'unshare-user',
  'unshare-mount',
  'clone3',
  'setns',
  'mount',
  'fsopen',
  'name_to_handle_at',
  'chroot',
  'keyctl',
  'add_key',
  'request_key',
  'ptrace',
  'process_vm_readv',
  'kcmp',
  'pidfd_getfd',
  'reboot',
  'swapon',
  'clock_settime',
  'settimeofday',
  'init_module',
  'finit_module',
  'iopl',
  'get_mempolicy',
  'syslog',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'io_uring_setup',
  'personality-query',
  'personality-bad',
];

/** Whether this process holds every capability the kernel knows (some VMs withhold a few). */
function holdsAllCapabilities(): boolean {
  const last = Number(readFileSync('/proc/sys/kernel/cap_last_cap', 'utf8'));
  const bounding = /^CapBnd:\s*([0-9a-f]+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '0';
  return BigInt(`0x${bounding}`) === (1n << BigInt(last + 1)) - 1n;
}

/** Every capability this host grants: ALL asks dockerd for all it knows, and runc fails without one. */
const ALL_HELD = holdsAllCapabilities()
  ? ['--cap-add', 'ALL']
  : ['--cap-add', 'ALL', '--cap-drop', 'SYS_RESOURCE'];

/**
 * `docker run` options of each case (the exec case probes from `docker exec` in a default
 * container). dockerd 20.10 cannot start a privileged container where a capability is withheld
 * (this VM withholds CAP_SYS_RESOURCE); there it gets what privileged means for seccomp and
 * capabilities instead, every held capability and no filter.
 */
const CASES: Record<string, { opts: string[]; dockerdOpts?: string[] }> = {
  default: { opts: [] },
  'cap-add SYS_ADMIN': { opts: ['--cap-add', 'SYS_ADMIN'] },
  'cap-add ALL': { opts: ALL_HELD },
  'seccomp=unconfined': { opts: ['--security-opt', 'seccomp=unconfined'] },
  privileged: {
    opts: ['--privileged'],
    dockerdOpts: holdsAllCapabilities() ? undefined : [...ALL_HELD, '--security-opt', 'seccomp=unconfined'],
  },
};

type Answers = Record<string, string>;

/** The probe, built static into a temp directory, and run by the docker CLI. */
function useProbe() {
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'seccomp-probe-'));
    buildStaticC('daemon/server/testing/syscall-probe.c', join(dir, 'probe'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const parse = (out: string): Answers => Object.fromEntries(out.split('\n').map((line) => line.split(' ')));
  const runOpts = () => ['--network', 'none', '-v', `${join(dir, 'probe')}:/probe:ro`];
  return {
    dir: () => dir,
    /** The answers of a `docker run` of the probe with these options. */
    run: async (cli: DockerCli, opts: string[], calls = CALLS) =>
      parse(await cli.docker('run', '--rm', ...runOpts(), ...opts, 'busybox', '/probe', ...calls)),
    /** A container that runs the probe with these calls each time it starts. */
    create: (cli: DockerCli, calls: string[]) =>
      cli.docker('create', ...runOpts(), 'busybox', '/probe', ...calls),
    start: async (cli: DockerCli, id: string) => parse(await cli.docker('start', '-a', id)),
    /** The answers of the probe run by `docker exec` in a container started without options. */
    exec: async (cli: DockerCli) => {
      const id = await cli.docker('run', '-d', ...runOpts(), 'busybox', 'sleep', '600');
      try {
        return parse(await cli.docker('exec', id, '/probe', ...CALLS));
      } finally {
        await cli.docker('rm', '-f', id);
      }
    },
  };
}

/** One row per call, one column per case: the answer, or `svcd≠dockerd` where they differ. */
function table(results: Record<string, { svcd: Answers; dockerd: Answers }>): string {
  const cases = Object.keys(results);
  const cell = (c: string, call: string) => {
    const { svcd, dockerd } = results[c];
    return svcd[call] === dockerd[call] ? svcd[call] : `${svcd[call]}≠${dockerd[call]}`;
  };
  const rows = [['call', ...cases], ...CALLS.map((call) => [call, ...cases.map((c) => cell(c, call))])];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((v, i) => v.padEnd(widths[i])).join('  ')).join('\n');
}

const skip = dockerdMissing() ?? gccMissing();

describe('seccomp: the same system calls allowed and denied as on Docker Engine 20.10', { skip }, () => {
  const engines = useEnginePair();
  const svcdCli = useDockerCliOn(() => engines().svcd.socket);
  const dockerdCli = useDockerCliOn(() => engines().dockerd.socket);
  const probe = useProbe();

  test('GET /info names the default profile as dockerd does', async () => {
    const { svcd, dockerd } = engines();
    const options = async (engine: typeof svcd | typeof dockerd) =>
      (await engine.request('GET', '/info')).json<{ SecurityOptions: string[] }>().SecurityOptions;
    assert.deepEqual(await options(svcd), await options(dockerd));
    assert.deepEqual(await options(svcd), ['name=seccomp,profile=default']);
  });

  test('each call answers the same in containers and execs, whatever the capabilities', async () => {
    const results: Record<string, { svcd: Answers; dockerd: Answers }> = {};
    for (const [name, { opts, dockerdOpts = opts }] of Object.entries(CASES)) {
      const [ours, theirs] = await Promise.all([
        probe.run(svcdCli, opts),
        probe.run(dockerdCli, dockerdOpts),
      ]);
      results[name] = { svcd: ours, dockerd: theirs };
    }
    const [ours, theirs] = await Promise.all([probe.exec(svcdCli), probe.exec(dockerdCli)]);
    results.exec = { svcd: ours, dockerd: theirs };
    process.stdout.write(`${table(results)}\n`);
    for (const [name, { svcd: s, dockerd: d }] of Object.entries(results)) assert.deepEqual(s, d, name);

    // The filter is really there (not both engines unconfined), and opens with the capability.
    const { default: confined, 'cap-add SYS_ADMIN': admin, 'seccomp=unconfined': unconfined } = results;
    for (const call of [
      'clone-user',
      'unshare-user',
      'mount',
      'keyctl',
      'bpf',
      'userfaultfd',
      'personality-bad',
    ])
      assert.equal(confined.svcd[call], 'EPERM', call);
    assert.equal(confined.svcd.clone3, 'ENOSYS');
    assert.equal(confined.svcd['personality-query'], 'ok');
    assert.deepEqual(
      [admin.svcd['unshare-user'], admin.svcd.mount, admin.svcd.keyctl],
      ['ok', 'ENOENT', 'EPERM'],
    );
    assert.deepEqual([unconfined.svcd['unshare-user'], unconfined.svcd.keyctl], ['ok', 'EOPNOTSUPP']);
    assert.deepEqual(results.exec.svcd, confined.svcd);
  });
});

describe('svcd --seccomp-profile: the profile of containers that name none', { skip }, () => {
  const probe = useProbe();
  const started: SvcdInstance[] = [];
  after(() => Promise.all(started.map((svcd) => destroySvcd(svcd))));
  const cli = useDockerCliOn(() => started.at(-1)!.socket);

  /** A new svcd with this option, the one `cli` talks to. */
  async function svcdWith(profile: string): Promise<SvcdInstance> {
    const svcd = await startSvcd({ args: ['--seccomp-profile', profile] });
    started.push(svcd);
    await importBusybox(svcd);
    return svcd;
  }
  const info = async (svcd: SvcdInstance) =>
    (await svcd.request('GET', '/info')).json<{ SecurityOptions: string[] }>().SecurityOptions;

  test('a profile file: its rules instead of the default ones; a container may still choose', async () => {
    const file = join(probe.dir(), 'profile.json');
    const denyKeyctl = {
      defaultAction: 'SCMP_ACT_ALLOW',
      syscalls: [{ names: ['keyctl'], action: 'SCMP_ACT_ERRNO' }],
    };
    writeFileSync(file, JSON.stringify(denyKeyctl));
    const svcd = await svcdWith(file);
    assert.deepEqual(await info(svcd), [`name=seccomp,profile=${file}`]);
    const calls = ['unshare-user', 'keyctl'];
    assert.deepEqual(await probe.run(cli, [], calls), { 'unshare-user': 'ok', keyctl: 'EPERM' });
    const unconfined = await probe.run(cli, ['--security-opt', 'seccomp=unconfined'], calls);
    assert.deepEqual(unconfined, { 'unshare-user': 'ok', keyctl: 'EOPNOTSUPP' });
  });

  test('unconfined: no filter; after a restart without it, the default one, as dockerd builds it at start', async () => {
    const unconfined = await svcdWith('unconfined');
    assert.deepEqual(await info(unconfined), ['name=seccomp,profile=unconfined']);
    const id = await probe.create(cli, ['unshare-user', 'keyctl']);
    assert.deepEqual(await probe.start(cli, id), { 'unshare-user': 'ok', keyctl: 'EOPNOTSUPP' });
    await unconfined.stop();
    started.pop();
    started.push(await startSvcd({ dir: unconfined.dir }));
    assert.deepEqual(await probe.start(cli, id), { 'unshare-user': 'EPERM', keyctl: 'EPERM' });
  });

  test('a profile that cannot be read or is not one stops svcd at start, saying why', async () => {
    const missing = join(probe.dir(), 'missing.json');
    const broken = join(probe.dir(), 'broken.json');
    writeFileSync(broken, JSON.stringify({ defaultAction: 'SCMP_ACT_NOPE' }));
    const refusals: [string, RegExp][] = [
      [missing, /svcd: opening seccomp profile \(.*missing\.json\) failed: ENOENT/],
      [broken, /svcd: invalid seccomp profile: unknown action "SCMP_ACT_NOPE"/],
    ];
    for (const [file, message] of refusals) {
      const dir = join(probe.dir(), 'refused');
      await assert.rejects(startSvcd({ dir, args: ['--seccomp-profile', file] }), message);
    }
  });
});

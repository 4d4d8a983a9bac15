import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_CAPABILITIES } from './capabilities';
import type { OciSeccomp } from './oci-types';
import {
  containerSeccomp,
  DEFAULT_SECCOMP_PROFILE,
  ociSeccomp,
  parseSeccompProfile,
  type SeccompChoice,
} from './seccomp';

const profile = parseSeccompProfile(
  JSON.stringify({
    defaultAction: 'SCMP_ACT_ERRNO',
    defaultErrnoRet: 1,
    archMap: [
      { architecture: 'SCMP_ARCH_X86_64', subArchitectures: ['SCMP_ARCH_X86', 'SCMP_ARCH_X32'] },
      { architecture: 'SCMP_ARCH_AARCH64', subArchitectures: ['SCMP_ARCH_ARM'] },
    ],
    syscalls: [
      { names: ['read', 'write'], action: 'SCMP_ACT_ALLOW' },
      { name: 'ptrace', action: 'SCMP_ACT_ALLOW', includes: { caps: ['CAP_SYS_PTRACE'] } },
      { names: ['arch_prctl'], action: 'SCMP_ACT_ALLOW', includes: { arches: ['amd64'] } },
      { names: ['personality'], action: 'SCMP_ACT_ALLOW', excludes: { caps: ['CAP_SYS_ADMIN'] } },
      {
        names: ['clone'],
        action: 'SCMP_ACT_ALLOW',
        args: [{ index: 0, value: 2114060288, op: 'SCMP_CMP_MASKED_EQ' }],
        excludes: { arches: ['s390x'] },
      },
    ],
  }),
);

test('a Docker profile becomes the OCI filter for this architecture and these capabilities', () => {
  assert.deepEqual(ociSeccomp(profile, ['CAP_CHOWN'], 'x64'), {
    defaultAction: 'SCMP_ACT_ERRNO',
    defaultErrnoRet: 1,
    architectures: ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', 'SCMP_ARCH_X32'],
    syscalls: [
      { names: ['read', 'write'], action: 'SCMP_ACT_ALLOW' },
      { names: ['arch_prctl'], action: 'SCMP_ACT_ALLOW' },
      { names: ['personality'], action: 'SCMP_ACT_ALLOW' },
      {
        names: ['clone'],
        action: 'SCMP_ACT_ALLOW',
        args: [{ index: 0, value: 2114060288, op: 'SCMP_CMP_MASKED_EQ' }],
      },
    ],
  });
});

test('capability and architecture filters follow the container', () => {
  const names = (caps: string[], arch: string) =>
    ociSeccomp(profile, caps, arch)?.syscalls?.map((s) => s.names[0]);
  assert.deepEqual(names(['CAP_SYS_PTRACE', 'CAP_SYS_ADMIN'], 'arm64'), ['read', 'ptrace', 'clone']);
  assert.deepEqual(ociSeccomp(profile, [], 'arm64')?.architectures, ['SCMP_ARCH_AARCH64', 'SCMP_ARCH_ARM']);
});

test('an empty profile disables seccomp', () => {
  assert.equal(ociSeccomp(parseSeccompProfile('{}'), []), undefined);
});

/** The names a filter allows whatever the arguments, and the rules that look at arguments or answer an errno. */
function rulesOf(filter: OciSeccomp | undefined) {
  const syscalls = filter?.syscalls ?? [];
  const unconditional = syscalls.filter((s) => s.action === 'SCMP_ACT_ALLOW' && !s.args);
  return {
    allowed: new Set(unconditional.flatMap((s) => s.names)),
    special: syscalls.filter((s) => s.args || s.action !== 'SCMP_ACT_ALLOW'),
  };
}

const defaults = (caps: string[], arch = 'x64') =>
  ociSeccomp(DEFAULT_SECCOMP_PROFILE, caps, arch) as OciSeccomp;

test("Docker's default profile, for Docker's default capabilities on amd64", () => {
  const filter = defaults(DEFAULT_CAPABILITIES);
  assert.equal(filter.defaultAction, 'SCMP_ACT_ERRNO');
  assert.deepEqual(filter.architectures, ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', 'SCMP_ARCH_X32']);
  const { allowed, special } = rulesOf(filter);
  for (const name of ['read', 'execve', 'arch_prctl', 'modify_ldt', 'chroot', 'ptrace', 'io_uring_setup'])
    assert.ok(allowed.has(name), name);
  const capGated = ['mount', 'unshare', 'setns', 'clone', 'bpf', 'perf_event_open', 'reboot', 'init_module'];
  for (const name of [...capGated, 'keyctl', 'add_key', 'userfaultfd', 'clock_settime', 'swapon', 'kcmp'])
    assert.ok(!allowed.has(name), name);
  // Only the ARM and s390 rules are left out.
  for (const name of ['set_tls', 's390_runtime_instr', 'sync_file_range2'])
    assert.ok(!allowed.has(name), name);
  assert.deepEqual(
    special.map((s) => [
      s.names.join(),
      s.action,
      s.errnoRet ?? s.args?.map((a) => [a.index, a.value, a.op]),
    ]),
    [
      ...[0, 8, 0x20000, 0x20008, 0xffffffff].map((v) => [
        'personality',
        'SCMP_ACT_ALLOW',
        [[0, v, 'SCMP_CMP_EQ']],
      ]),
      // Every namespace flag but CLONE_NEWTIME clear: no new user, mount, pid, net… namespace.
      ['clone', 'SCMP_ACT_ALLOW', [[0, 0x7e020000, 'SCMP_CMP_MASKED_EQ']]],
      // glibc falls back to clone when clone3 answers ENOSYS, where the flags can be checked.
      ['clone3', 'SCMP_ACT_ERRNO', 38],
    ],
  );
});

test('capabilities open the calls they gate', () => {
  const admin = rulesOf(defaults([...DEFAULT_CAPABILITIES, 'CAP_SYS_ADMIN']));
  for (const name of ['mount', 'umount2', 'unshare', 'setns', 'clone', 'clone3', 'bpf', 'perf_event_open'])
    assert.ok(admin.allowed.has(name), name);
  assert.deepEqual(
    admin.special.map((s) => s.names[0]),
    Array(5).fill('personality'),
    'no flag rule for clone, no ENOSYS for clone3',
  );
  const gates: [string, string[]][] = [
    ['CAP_SYS_PTRACE', ['process_vm_readv', 'kcmp', 'pidfd_getfd']],
    ['CAP_SYS_MODULE', ['init_module', 'finit_module', 'delete_module']],
    ['CAP_SYS_BOOT', ['reboot']],
    ['CAP_SYS_TIME', ['clock_settime', 'settimeofday']],
    ['CAP_SYS_NICE', ['mbind', 'set_mempolicy']],
    ['CAP_SYS_RAWIO', ['iopl', 'ioperm']],
    ['CAP_SYS_PACCT', ['acct']],
    ['CAP_SYSLOG', ['syslog']],
    ['CAP_DAC_READ_SEARCH', ['open_by_handle_at']],
  ];
  for (const [cap, names] of gates) {
    const { allowed } = rulesOf(defaults([cap]));
    for (const name of names) assert.ok(allowed.has(name), `${cap} ${name}`);
  }
  assert.ok(!rulesOf(defaults([])).allowed.has('chroot'), 'chroot needs CAP_SYS_CHROOT');
});

test('on arm64 the ARM calls are allowed and the x86 ones are not', () => {
  const filter = defaults(DEFAULT_CAPABILITIES, 'arm64');
  assert.deepEqual(filter.architectures, ['SCMP_ARCH_AARCH64', 'SCMP_ARCH_ARM']);
  const { allowed } = rulesOf(filter);
  for (const name of ['set_tls', 'cacheflush', 'arm_fadvise64_64']) assert.ok(allowed.has(name), name);
  for (const name of ['arch_prctl', 'modify_ldt']) assert.ok(!allowed.has(name), name);
});

test("a container's filter: none when privileged or unconfined, else its own, the daemon's, Docker's", () => {
  const caps = DEFAULT_CAPABILITIES;
  const pick = (own?: SeccompChoice, daemonDefault?: SeccompChoice, privileged = false) =>
    containerSeccomp({ own, daemonDefault, privileged, caps });
  assert.deepEqual(pick(), ociSeccomp(DEFAULT_SECCOMP_PROFILE, caps));
  assert.equal(pick(undefined, undefined, true), undefined);
  assert.equal(pick(profile, profile, true), undefined);
  assert.equal(pick('unconfined'), undefined);
  assert.equal(pick(undefined, 'unconfined'), undefined);
  assert.deepEqual(pick(profile, 'unconfined'), ociSeccomp(profile, caps));
  assert.deepEqual(pick('unconfined', profile), undefined);
  assert.deepEqual(pick(undefined, profile), ociSeccomp(profile, caps));
});

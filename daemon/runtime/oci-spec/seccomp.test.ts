import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ociSeccomp, parseSeccompProfile } from './seccomp';

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

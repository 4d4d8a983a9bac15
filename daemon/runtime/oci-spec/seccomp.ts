// Custom seccomp profiles in Docker's format (what `--security-opt seccomp=file.json` sends:
// the file's JSON), turned into linux.seccomp for this machine's architecture and the
// container's capabilities. svcd has no default profile: without one, containers run with no
// seccomp filter, as with seccomp=unconfined.
import { arch, release } from 'node:os';
import { InvalidParameterError } from '../../api/errors';
import type { OciSeccomp, OciSeccompArg } from './oci-types';

interface Filter {
  caps?: string[];
  arches?: string[];
  minKernel?: string;
}

interface ProfileSyscall {
  name?: string;
  names?: string[];
  action: string;
  errnoRet?: number;
  args?: OciSeccompArg[] | null;
  includes?: Filter | null;
  excludes?: Filter | null;
}

export interface SeccompProfile {
  defaultAction: string;
  defaultErrnoRet?: number;
  architectures?: string[] | null;
  archMap?: { architecture: string; subArchitectures?: string[] | null }[] | null;
  syscalls?: ProfileSyscall[] | null;
}

const ACTIONS = new Set([
  'SCMP_ACT_KILL',
  'SCMP_ACT_KILL_PROCESS',
  'SCMP_ACT_KILL_THREAD',
  'SCMP_ACT_TRAP',
  'SCMP_ACT_ERRNO',
  'SCMP_ACT_TRACE',
  'SCMP_ACT_ALLOW',
  'SCMP_ACT_LOG',
]);
const OPERATORS = new Set([
  'SCMP_CMP_NE',
  'SCMP_CMP_LT',
  'SCMP_CMP_LE',
  'SCMP_CMP_EQ',
  'SCMP_CMP_GE',
  'SCMP_CMP_GT',
  'SCMP_CMP_MASKED_EQ',
]);

/** Node's architecture → Go's name (used by `arches` filters) and libseccomp's. */
const NATIVE: Record<string, [goArch: string, seccompArch: string]> = {
  x64: ['amd64', 'SCMP_ARCH_X86_64'],
  ia32: ['386', 'SCMP_ARCH_X86'],
  arm64: ['arm64', 'SCMP_ARCH_AARCH64'],
  arm: ['arm', 'SCMP_ARCH_ARM'],
  ppc64: ['ppc64le', 'SCMP_ARCH_PPC64LE'],
  s390x: ['s390x', 'SCMP_ARCH_S390X'],
  riscv64: ['riscv64', 'SCMP_ARCH_RISCV64'],
};

function invalid(reason: string): InvalidParameterError {
  return new InvalidParameterError(`invalid seccomp profile: ${reason}`);
}

function checkAction(action: string): void {
  if (!ACTIONS.has(action)) throw invalid(`unknown action ${JSON.stringify(action)}`);
}

/** Parses and checks a profile, so that a bad one is a 400 at create rather than a failed start. */
export function parseSeccompProfile(text: string): SeccompProfile {
  let profile: SeccompProfile;
  try {
    profile = JSON.parse(text) as SeccompProfile;
  } catch (err) {
    throw new InvalidParameterError(`Decoding seccomp profile failed: ${(err as Error).message}`);
  }
  if (typeof profile !== 'object' || profile === null) throw invalid('not a JSON object');
  if (profile.architectures?.length && profile.archMap?.length) {
    throw invalid(
      "both 'architectures' and 'archMap' are specified, use either 'architectures' or 'archMap'",
    );
  }
  if (profile.defaultAction) checkAction(profile.defaultAction);
  for (const call of profile.syscalls ?? []) {
    if (call.name && call.names?.length)
      throw invalid("both 'name' and 'names' are specified, use either 'name' or 'names'");
    checkAction(call.action);
    for (const arg of call.args ?? []) {
      if (!OPERATORS.has(arg.op)) throw invalid(`unknown operator ${JSON.stringify(arg.op)}`);
    }
  }
  return profile;
}

function kernelAtLeast(version: string): boolean {
  const [major, minor] = release().split(/[.-]/).map(Number);
  const [wantMajor, wantMinor = 0] = version.split('.').map(Number);
  return major > wantMajor || (major === wantMajor && minor >= wantMinor);
}

function matches(
  filter: Filter,
  goArch: string,
  caps: string[],
): { arch: boolean; caps: boolean; kernel: boolean } {
  return {
    arch: !!filter.arches?.includes(goArch),
    caps: !!filter.caps?.length && filter.caps.every((cap) => caps.includes(cap)),
    kernel: !!filter.minKernel && kernelAtLeast(filter.minKernel),
  };
}

function applies(call: ProfileSyscall, goArch: string, caps: string[]): boolean {
  if (call.excludes) {
    const excluded = matches(call.excludes, goArch, caps);
    const anyCap = !!call.excludes.caps?.some((cap) => caps.includes(cap));
    if (excluded.arch || anyCap || excluded.kernel) return false;
  }
  if (call.includes) {
    const included = matches(call.includes, goArch, caps);
    if (call.includes.arches?.length && !included.arch) return false;
    if (call.includes.caps?.length && !included.caps) return false;
    if (call.includes.minKernel && !included.kernel) return false;
  }
  return true;
}

/** The OCI filter for a profile; undefined when the profile sets nothing (seccomp disabled). */
export function ociSeccomp(
  profile: SeccompProfile,
  caps: string[],
  nodeArch = arch(),
): OciSeccomp | undefined {
  if (!profile.defaultAction && !profile.syscalls?.length) return undefined;
  const [goArch, seccompArch] = NATIVE[nodeArch] ?? [nodeArch, ''];
  const architectures = profile.architectures?.length
    ? profile.architectures
    : (profile.archMap ?? [])
        .filter((entry) => entry.architecture === seccompArch)
        .flatMap((entry) => [entry.architecture, ...(entry.subArchitectures ?? [])]);
  const syscalls = (profile.syscalls ?? [])
    .filter((call) => applies(call, goArch, caps))
    .map((call) => ({
      names: call.name ? [call.name] : (call.names ?? []),
      action: call.action,
      ...(call.errnoRet === undefined ? {} : { errnoRet: call.errnoRet }),
      ...(call.args?.length ? { args: call.args } : {}),
    }));
  return {
    defaultAction: profile.defaultAction,
    ...(profile.defaultErrnoRet === undefined ? {} : { defaultErrnoRet: profile.defaultErrnoRet }),
    ...(architectures.length > 0 ? { architectures } : {}),
    syscalls,
  };
}

// Seccomp profiles in Docker's format, turned into linux.seccomp for this machine's architecture
// and the container's capabilities: Docker 20.10's default profile (seccomp-default.json, the
// same data dockerd builds in), the daemon's --seccomp-profile, or a container's own
// (`--security-opt seccomp=file.json` sends the file's JSON). One converter serves all three.
import { arch, release } from 'node:os';
import { InvalidParameterError } from '../../api/errors';
import type { OciSeccomp, OciSeccompArg } from './oci-types';
import defaultProfileData from './seccomp-default.json';

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

/** Node's architecture → the name `arches` filters use (dockerd's goToNative) and libseccomp's. */
const NATIVE: Record<string, [profileArch: string, seccompArch: string]> = {
  x64: ['amd64', 'SCMP_ARCH_X86_64'],
  ia32: ['x86', 'SCMP_ARCH_X86'],
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
  let profile: unknown;
  try {
    profile = JSON.parse(text);
  } catch (err) {
    throw new InvalidParameterError(`Decoding seccomp profile failed: ${(err as Error).message}`);
  }
  return checkSeccompProfile(profile);
}

function checkSeccompProfile(data: unknown): SeccompProfile {
  if (typeof data !== 'object' || data === null) throw invalid('not a JSON object');
  const profile = data as SeccompProfile;
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
  profileArch: string,
  caps: string[],
): { arch: boolean; caps: boolean; kernel: boolean } {
  return {
    arch: !!filter.arches?.includes(profileArch),
    caps: !!filter.caps?.length && filter.caps.every((cap) => caps.includes(cap)),
    kernel: !!filter.minKernel && kernelAtLeast(filter.minKernel),
  };
}

function applies(call: ProfileSyscall, profileArch: string, caps: string[]): boolean {
  if (call.excludes) {
    const excluded = matches(call.excludes, profileArch, caps);
    const anyCap = !!call.excludes.caps?.some((cap) => caps.includes(cap));
    if (excluded.arch || anyCap || excluded.kernel) return false;
  }
  if (call.includes) {
    const included = matches(call.includes, profileArch, caps);
    if (call.includes.arches?.length && !included.arch) return false;
    if (call.includes.caps?.length && !included.caps) return false;
    if (call.includes.minKernel && !included.kernel) return false;
  }
  return true;
}

/** Docker 20.10's default profile, checked as a user's would be. */
export const DEFAULT_SECCOMP_PROFILE = checkSeccompProfile(defaultProfileData);

/** The OCI filter for a profile; undefined when the profile sets nothing (seccomp disabled). */
export function ociSeccomp(
  profile: SeccompProfile,
  caps: string[],
  nodeArch = arch(),
): OciSeccomp | undefined {
  if (!profile.defaultAction && !profile.syscalls?.length) return undefined;
  const [profileArch, seccompArch] = NATIVE[nodeArch] ?? [nodeArch, ''];
  const architectures = profile.architectures?.length
    ? profile.architectures
    : (profile.archMap ?? [])
        .filter((entry) => entry.architecture === seccompArch)
        .flatMap((entry) => [entry.architecture, ...(entry.subArchitectures ?? [])]);
  const syscalls = (profile.syscalls ?? [])
    .filter((call) => applies(call, profileArch, caps))
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

/** A container's or the daemon's seccomp setting: a profile, or no filter at all. */
export type SeccompChoice = SeccompProfile | 'unconfined';

/**
 * A container's filter, decided as dockerd's WithSeccomp: none when privileged or unconfined,
 * else from its own profile, the daemon's, or Docker's default, the first that is set.
 */
export function containerSeccomp(options: {
  own?: SeccompChoice;
  daemonDefault?: SeccompChoice;
  privileged: boolean;
  caps: string[];
}): OciSeccomp | undefined {
  const profile = options.own ?? options.daemonDefault ?? DEFAULT_SECCOMP_PROFILE;
  if (options.privileged || profile === 'unconfined') return undefined;
  return ociSeccomp(profile, options.caps);
}

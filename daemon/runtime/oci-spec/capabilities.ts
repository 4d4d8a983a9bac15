// Capabilities: Docker's default set, CapAdd/CapDrop (with or without CAP_, any case, ALL),
// Privileged = every capability the kernel knows.
import { InvalidParameterError } from '../../api/errors';
import type { OciCapabilities } from './oci-types';

/** Indexed by capability number (linux/capability.h). */
export const ALL_CAPABILITIES = [
  'CAP_CHOWN',
  'CAP_DAC_OVERRIDE',
  'CAP_DAC_READ_SEARCH',
  'CAP_FOWNER',
  'CAP_FSETID',
  'CAP_KILL',
  'CAP_SETGID',
  'CAP_SETUID',
  'CAP_SETPCAP',
  'CAP_LINUX_IMMUTABLE',
  'CAP_NET_BIND_SERVICE',
  'CAP_NET_BROADCAST',
  'CAP_NET_ADMIN',
  'CAP_NET_RAW',
  'CAP_IPC_LOCK',
  'CAP_IPC_OWNER',
  'CAP_SYS_MODULE',
  'CAP_SYS_RAWIO',
  'CAP_SYS_CHROOT',
  'CAP_SYS_PTRACE',
  'CAP_SYS_PACCT',
  'CAP_SYS_ADMIN',
  'CAP_SYS_BOOT',
  'CAP_SYS_NICE',
  'CAP_SYS_RESOURCE',
  'CAP_SYS_TIME',
  'CAP_SYS_TTY_CONFIG',
  'CAP_MKNOD',
  'CAP_LEASE',
  'CAP_AUDIT_WRITE',
  'CAP_AUDIT_CONTROL',
  'CAP_SETFCAP',
  'CAP_MAC_OVERRIDE',
  'CAP_MAC_ADMIN',
  'CAP_SYSLOG',
  'CAP_WAKE_ALARM',
  'CAP_BLOCK_SUSPEND',
  'CAP_AUDIT_READ',
  'CAP_PERFMON',
  'CAP_BPF',
  'CAP_CHECKPOINT_RESTORE',
];

export const DEFAULT_CAPABILITIES = [
  'CAP_CHOWN',
  'CAP_DAC_OVERRIDE',
  'CAP_FSETID',
  'CAP_FOWNER',
  'CAP_MKNOD',
  'CAP_NET_RAW',
  'CAP_SETGID',
  'CAP_SETUID',
  'CAP_SETFCAP',
  'CAP_SETPCAP',
  'CAP_NET_BIND_SERVICE',
  'CAP_SYS_CHROOT',
  'CAP_KILL',
  'CAP_AUDIT_WRITE',
];

const ALL = 'ALL';

/** Upper-cases and prefixes CAP_; throws for names no kernel knows. */
export function normalizeCapabilities(names: string[] | null | undefined): string[] {
  return (names ?? []).map((raw) => {
    const upper = raw.trim().toUpperCase();
    if (upper === ALL) return ALL;
    const name = upper.startsWith('CAP_') ? upper : `CAP_${upper}`;
    if (!ALL_CAPABILITIES.includes(name))
      throw new InvalidParameterError(`unknown capability: ${JSON.stringify(raw)}`);
    return name;
  });
}

export interface CapabilityOptions {
  capAdd?: string[] | null;
  capDrop?: string[] | null;
  privileged?: boolean;
  /** The capabilities svcd may grant (HostFacts.capabilities). */
  available: string[];
}

/**
 * The effective capability list, with the rules of dockerd's TweakCapabilities. Privileged and
 * ALL mean every capability svcd holds; one asked for by name that svcd does not hold is refused
 * here rather than failing when runc applies it.
 */
export function resolveCapabilities(options: CapabilityOptions): string[] {
  const add = normalizeCapabilities(options.capAdd);
  const drop = normalizeCapabilities(options.capDrop);
  if (options.privileged) return [...options.available];
  for (const cap of add) {
    if (cap !== ALL && !options.available.includes(cap)) {
      throw new InvalidParameterError(
        `capability ${cap} cannot be granted: svcd does not hold it on this host`,
      );
    }
  }
  let caps: string[];
  if (add.includes(ALL)) caps = options.available.filter((cap) => !drop.includes(cap));
  else if (drop.includes(ALL)) caps = add;
  else
    caps = [
      ...DEFAULT_CAPABILITIES.filter((cap) => !drop.includes(cap) && options.available.includes(cap)),
      ...add,
    ];
  return [...new Set(caps)];
}

/** Capabilities in a /proc/<pid>/status mask (CapBnd), up to the kernel's cap_last_cap. */
export function capabilitiesInMask(mask: bigint, lastCap: number): string[] {
  return ALL_CAPABILITIES.filter((_, bit) => bit <= lastCap && (mask >> BigInt(bit)) & 1n);
}

/** Inheritable and ambient stay empty (the fix Docker 20.10.14 made for CVE-2022-24769). */
export function ociCapabilities(caps: string[]): OciCapabilities {
  return { bounding: caps, effective: caps, permitted: caps, inheritable: [], ambient: [] };
}

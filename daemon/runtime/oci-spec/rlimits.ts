// Ulimits → process.rlimits. A limit of -1 means unlimited (RLIM_INFINITY).
import { InvalidParameterError } from '../../api/errors';
import type { Ulimit } from '../../api/container-types';
import type { OciRlimit } from './oci-types';

const RLIMIT_NAMES = new Set([
  'as',
  'core',
  'cpu',
  'data',
  'fsize',
  'locks',
  'memlock',
  'msgqueue',
  'nice',
  'nofile',
  'nproc',
  'rss',
  'rtprio',
  'rttime',
  'sigpending',
  'stack',
]);

/** Marks RLIM_INFINITY in the spec object; spec-json.ts writes it as the uint64 maximum. */
export const RLIM_INFINITY = -1;

export function validateUlimits(ulimits: Ulimit[] | null | undefined): void {
  for (const ulimit of ulimits ?? []) {
    if (!RLIMIT_NAMES.has(ulimit.Name))
      throw new InvalidParameterError(`invalid ulimit type: ${ulimit.Name}`);
    for (const value of [ulimit.Soft, ulimit.Hard]) {
      if (!Number.isInteger(value) || value < -1) {
        throw new InvalidParameterError(`invalid ulimit value for ${ulimit.Name}: ${value}`);
      }
    }
    const soft = ulimit.Soft === -1 ? Infinity : ulimit.Soft;
    const hard = ulimit.Hard === -1 ? Infinity : ulimit.Hard;
    if (soft > hard) {
      throw new InvalidParameterError(
        `ulimit soft limit must be less than or equal to hard limit: ${ulimit.Soft} > ${ulimit.Hard}`,
      );
    }
  }
}

/** Later entries for the same name win, as they override earlier ones in dockerd. */
export function ociRlimits(ulimits: Ulimit[] | null | undefined): OciRlimit[] {
  const byType = new Map<string, OciRlimit>();
  for (const ulimit of ulimits ?? []) {
    const type = `RLIMIT_${ulimit.Name.toUpperCase()}`;
    byType.set(type, { type, soft: ulimit.Soft, hard: ulimit.Hard });
  }
  return [...byType.values()];
}

// tmpfs mount options: validation and the merge over Docker's defaults (noexec,nosuid,nodev),
// later flags overriding their opposites and later data keys overriding earlier ones.
import { InvalidParameterError } from '../../api/errors';
import type { TmpfsOptions } from '../../api/container-types';

const OPPOSITES: Record<string, string> = {
  ro: 'rw',
  exec: 'noexec',
  suid: 'nosuid',
  dev: 'nodev',
  sync: 'async',
  mand: 'nomand',
  atime: 'noatime',
  diratime: 'nodiratime',
  relatime: 'norelatime',
  strictatime: 'nostrictatime',
};
const FLAGS = new Set([...Object.keys(OPPOSITES), ...Object.values(OPPOSITES), 'dirsync']);
const DATA_KEYS = new Set(['size', 'mode', 'uid', 'gid', 'nr_inodes', 'nr_blocks', 'mpol']);

export const DEFAULT_TMPFS_OPTIONS = ['noexec', 'nosuid', 'nodev'];

function flagGroup(flag: string): string {
  return OPPOSITES[flag] ? flag : (Object.keys(OPPOSITES).find((k) => OPPOSITES[k] === flag) ?? flag);
}

export function validateTmpfsOptions(options: string[]): void {
  for (const option of options) {
    const eq = option.indexOf('=');
    const ok = eq < 0 ? FLAGS.has(option) : DATA_KEYS.has(option.slice(0, eq)) && option.length > eq + 1;
    if (!ok) throw new InvalidParameterError(`invalid tmpfs option ${JSON.stringify(option)}`);
  }
}

export function mergeTmpfsOptions(options: string[]): string[] {
  const merged = new Map<string, string>();
  for (const option of options) {
    const eq = option.indexOf('=');
    const key = eq < 0 ? `flag:${flagGroup(option)}` : `data:${option.slice(0, eq)}`;
    merged.delete(key);
    merged.set(key, option);
  }
  return [...merged.values()];
}

/** Options of a HostConfig.Tmpfs value such as `rw,size=64m,mode=1777`. */
export function tmpfsOptionsFromString(text: string, readOnly = false): string[] {
  const user = text
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  validateTmpfsOptions(user);
  return mergeTmpfsOptions([...DEFAULT_TMPFS_OPTIONS, ...user, ...(readOnly ? ['ro'] : [])]);
}

/** Options of a Mounts item's TmpfsOptions. */
export function tmpfsOptionsFromMount(options: TmpfsOptions | null | undefined, readOnly: boolean): string[] {
  const user: string[] = [];
  const size = options?.SizeBytes ?? 0;
  if (size < 0) throw new InvalidParameterError('invalid mount config for type "tmpfs": invalid tmpfs size');
  if (size > 0) user.push(`size=${size}`);
  if (options?.Mode) user.push(`mode=${options.Mode.toString(8)}`);
  return mergeTmpfsOptions([...DEFAULT_TMPFS_OPTIONS, ...user, ...(readOnly ? ['ro'] : [])]);
}

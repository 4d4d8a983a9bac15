// Locating the host programs containerd needs, with an install hint when one is missing.
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { SystemError } from '../../api/errors';

/** Directories searched besides $PATH: sbin ones are often missing from a user's PATH. */
const systemDirs = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** $PATH for containerd and its shims, so they find runc wherever it is installed. */
export function childSearchPath(): string {
  const dirs = [...(process.env.PATH ?? '').split(':').filter(Boolean), ...systemDirs];
  return [...new Set(dirs)].join(':');
}

export function findBinary(name: string): string | undefined {
  for (const dir of childSearchPath().split(':')) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/** Debian package providing each program. */
const packages: Record<string, string> = {
  containerd: 'containerd',
  'containerd-shim-runc-v2': 'containerd',
  runc: 'runc',
};

/** The path of `name` (or the `explicit` path, checked), or a SystemError saying what to install. */
export function requireBinary(name: string, explicit?: string): string {
  const hint = `install it (apt-get install ${packages[name] ?? name})`;
  if (explicit) {
    try {
      accessSync(explicit, constants.X_OK);
      return explicit;
    } catch {
      throw new SystemError(`${name} not found: ${explicit} is not an executable file; ${hint}`);
    }
  }
  const found = findBinary(name);
  if (found) return found;
  throw new SystemError(`${name} not found in PATH or ${systemDirs.join(', ')}: ${hint}`);
}

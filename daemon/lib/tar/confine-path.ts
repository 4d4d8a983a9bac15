// Resolving archive entry names under an extraction root so that nothing lands outside it:
// `..` that would climb above the root is rejected, absolute names are taken as relative to the
// root (as GNU tar and Docker do), and symlinks met on the way are followed as if the root were
// `/`, so a link to `/etc` or `../../x` stays inside. Node has no openat(2), so this guards
// against hostile archives, not against another process swapping directories concurrently.
import { lstat, readlink } from 'node:fs/promises';
import path from 'node:path';
import { InvalidParameterError } from '../../api/errors';

const MAX_LINKS = 255;

/** The entry name as clean components relative to the root; throws when it climbs above it. */
export function confineName(name: string): string[] {
  const parts: string[] = [];
  for (const part of name.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0)
        throw new InvalidParameterError(
          `invalid archive entry ${JSON.stringify(name)}: path escapes the root`,
        );
      parts.pop();
    } else {
      parts.push(part);
    }
  }
  return parts;
}

/** Cleans components the way a chroot would: `..` at the root stays at the root. */
function clampedJoin(base: string[], target: string): string[] {
  const parts = target.startsWith('/') ? [] : [...base];
  for (const part of target.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts;
}

export interface ResolveOptions {
  /** Follow a symlink in the last component too (to open a file, not to create an entry). */
  followFinal?: boolean;
}

/**
 * The host path for `name` under `root`, with every symlink on the way resolved inside the root.
 * The last component is left as is unless `followFinal`, since extraction replaces it.
 */
export async function resolveInRoot(
  root: string,
  name: string,
  options: ResolveOptions = {},
): Promise<string> {
  const pending = confineName(name);
  const resolved: string[] = [];
  let links = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    const isFinal = pending.length === 0;
    const candidate = path.join(root, ...resolved, part);
    if (isFinal && !options.followFinal) {
      resolved.push(part);
      break;
    }
    let stats;
    try {
      stats = await lstat(candidate);
    } catch {
      // Nothing there yet: the rest cannot hold symlinks either.
      resolved.push(part, ...pending);
      break;
    }
    if (!stats.isSymbolicLink()) {
      resolved.push(part);
      continue;
    }
    if (++links > MAX_LINKS) throw new InvalidParameterError(`${name}: too many levels of symbolic links`);
    const target = await readlink(candidate);
    const base = clampedJoin(resolved, target);
    resolved.length = 0;
    pending.unshift(...base);
  }
  return path.join(root, ...resolved);
}

// Resolves a path inside a container's root filesystem, following symlinks as the container
// would see them, so that a hostile `/etc/passwd -> /../../host/file` never leaves the rootfs.
import { lstatSync, readlinkSync } from 'node:fs';
import { posix } from 'node:path';
import { InvalidParameterError } from '../../api/errors';

const MAX_SYMLINKS = 255;

export function resolveInRootfs(rootfs: string, path: string): string {
  let resolved = '/';
  const pending = path.split('/').filter((part) => part !== '' && part !== '.');
  let links = 0;
  while (pending.length > 0) {
    const part = pending.shift() as string;
    if (part === '..') {
      resolved = posix.dirname(resolved);
      continue;
    }
    const candidate = posix.join(resolved, part);
    const onHost = posix.join(rootfs, candidate);
    let isLink = false;
    try {
      isLink = lstatSync(onHost).isSymbolicLink();
    } catch {
      // A missing component resolves lexically, as securejoin does.
    }
    if (!isLink) {
      resolved = candidate;
      continue;
    }
    if (++links > MAX_SYMLINKS) throw new InvalidParameterError(`too many symlinks resolving ${path}`);
    const target = readlinkSync(onHost);
    if (target.startsWith('/')) resolved = '/';
    pending.unshift(...target.split('/').filter((p) => p !== '' && p !== '.'));
  }
  return posix.join(rootfs, resolved);
}

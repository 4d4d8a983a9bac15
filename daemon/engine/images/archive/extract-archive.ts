// Unpacks an image archive (docker save output or an OCI layout tar) into a scratch directory,
// every entry confined to it. Docker does the same before reading manifest.json, since the
// entries it needs may come in any order.
import { createWriteStream } from 'node:fs';
import { link, mkdir, rm, symlink, chmod } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InvalidParameterError } from '../../../api/errors';
import { decompress } from '../../../lib/tar/decompress';
import { readTar } from '../../../lib/tar/tar-reader';
import { confineName, resolveInRoot } from '../../../lib/tar/confine-path';

/** Extracts regular files, directories, symlinks and hardlinks; other entry types are ignored. */
export async function extractArchive(input: Readable, root: string, signal?: AbortSignal): Promise<void> {
  const { stream } = await decompress(input);
  await mkdir(root, { recursive: true });
  for await (const entry of readTar(stream)) {
    signal?.throwIfAborted();
    const { header } = entry;
    if (confineName(header.name).length === 0) continue;
    const target = await resolveInRoot(root, header.name);
    await mkdir(path.dirname(target), { recursive: true });
    if (header.type === 'directory') {
      await mkdir(target, { recursive: true });
      continue;
    }
    // Never write through whatever an earlier entry left at this name (a symlink especially).
    await rm(target, { recursive: true, force: true });
    switch (header.type) {
      case 'file':
        await pipeline(entry.body, createWriteStream(target, { flags: 'wx', mode: 0o600 }), { signal });
        await chmod(target, (header.mode & 0o777) | 0o600);
        break;
      case 'symlink':
        await symlink(header.linkname, target);
        break;
      case 'link':
        await link(await resolveInRoot(root, header.linkname, { followFinal: true }), target);
        break;
      default:
        break;
    }
  }
}

/** Opens a path named inside the archive (manifest.json entries), confined to the root. */
export async function archivePath(root: string, name: string): Promise<string> {
  if (typeof name !== 'string' || name === '')
    throw new InvalidParameterError('invalid archive: empty path in manifest');
  return resolveInRoot(root, name, { followFinal: true });
}

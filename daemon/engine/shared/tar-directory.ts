// Streams a directory tree (or one file) from the host as a tar archive: the container's
// export and the archive/copy endpoints. Hard links are written once and linked after.
import { createReadStream } from 'node:fs';
import { lstat, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Stats } from 'node:fs';
import { TarWriter } from '../../lib/tar/tar-writer';
import type { TarEntryType } from '../../lib/tar/tar-header';

function entryType(s: Stats): TarEntryType | undefined {
  if (s.isDirectory()) return 'directory';
  if (s.isFile()) return 'file';
  if (s.isSymbolicLink()) return 'symlink';
  if (s.isCharacterDevice()) return 'character-device';
  if (s.isBlockDevice()) return 'block-device';
  if (s.isFIFO()) return 'fifo';
  return undefined;
}

export interface TarSource {
  /** Host path of the file or directory to archive. */
  hostPath: string;
  /** Its name in the archive ('' puts a directory's children at the top). */
  name: string;
}

/** What is seen at a name instead of the tree's own entry: a file or directory mounted there. */
export type TarOverrides = ReadonlyMap<string, string>;

async function addTree(
  tar: TarWriter,
  treePath: string,
  name: string,
  links: Map<string, string>,
  overrides: TarOverrides,
): Promise<void> {
  const hostPath = overrides.get(name) ?? treePath;
  const s = await lstat(hostPath);
  const type = entryType(s);
  if (!type) return;
  if (name !== '') {
    const common = { name, mode: s.mode & 0o7777, uid: s.uid, gid: s.gid, mtime: s.mtime };
    const inode = `${s.dev}:${s.ino}`;
    if (type === 'file' && s.nlink > 1 && links.has(inode)) {
      await tar.add({ ...common, type: 'link', linkname: links.get(inode)! });
    } else if (type === 'file') {
      if (s.nlink > 1) links.set(inode, name);
      await tar.add({ ...common, type, size: s.size }, createReadStream(hostPath));
    } else if (type === 'symlink') {
      await tar.add({ ...common, type, linkname: await readlink(hostPath) });
    } else if (type === 'character-device' || type === 'block-device') {
      await tar.add({
        ...common,
        type,
        devmajor: Math.floor(s.rdev / 256) & 0xfff,
        devminor: (s.rdev & 0xff) | ((s.rdev >> 12) & 0xfff00),
      });
    } else {
      await tar.add({ ...common, type });
    }
  }
  if (type !== 'directory') return;
  const children = (await readdir(hostPath)).sort();
  for (const child of children)
    await addTree(tar, join(hostPath, child), name === '' ? child : `${name}/${child}`, links, overrides);
}

/** `overrides` (by name in the archive) stand in for what the walk finds there. */
export function tarSources(sources: TarSource[], overrides: TarOverrides = new Map()): Readable {
  const tar = new TarWriter();
  void (async () => {
    try {
      const links = new Map<string, string>();
      for (const source of sources) await addTree(tar, source.hostPath, source.name, links, overrides);
      await tar.finish();
    } catch (err) {
      tar.abort(err as Error);
    }
  })();
  return tar.stream;
}

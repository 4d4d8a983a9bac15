// Extracts an uploaded tar into a directory of a container. Every entry is resolved under the
// container's root (or the volume's) with the confinement helper, so `..`, absolute names and
// symlinks in the archive or the container never lead outside it.
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { chmod, lchown, link, lstat, lutimes, mkdir, rm, symlink, utimes } from 'node:fs/promises';
import { dirname, posix } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { InvalidParameterError } from '../../api/errors';
import { confineName, resolveInRoot } from '../../lib/tar/confine-path';
import { decompress } from '../../lib/tar/decompress';
import type { TarHeader } from '../../lib/tar/tar-header';
import { readTar } from '../../lib/tar/tar-reader';

const run = promisify(execFile);

export interface ExtractOptions {
  /** The confinement root: the container's rootfs or a volume's directory. */
  root: string;
  /** The extraction directory, relative to the root. */
  dir: string;
  noOverwriteDirNonDir: boolean;
  /** Keep the archive's owners; otherwise entries belong to root, as dockerd does. */
  keepOwners: boolean;
}

async function existing(path: string) {
  return lstat(path).catch(() => undefined);
}

async function prepareTarget(path: string, header: TarHeader, opts: ExtractOptions): Promise<void> {
  const old = await existing(path);
  if (!old) return;
  const isDir = header.type === 'directory';
  if (opts.noOverwriteDirNonDir && old.isDirectory() !== isDir) {
    throw new InvalidParameterError(
      isDir
        ? `cannot overwrite non-directory "${header.name}" with directory "${header.name}"`
        : `cannot overwrite directory "${header.name}" with non-directory "${header.name}"`,
    );
  }
  if (isDir && old.isDirectory()) return;
  await rm(path, { recursive: true, force: true });
}

async function writeEntry(
  path: string,
  header: TarHeader,
  body: Readable,
  opts: ExtractOptions,
): Promise<void> {
  switch (header.type) {
    case 'directory':
      await mkdir(path, { recursive: true });
      break;
    case 'file':
      await pipeline(body, createWriteStream(path, { flags: 'wx', mode: header.mode & 0o7777 })).catch(
        async (err: unknown) => {
          // A file not written whole (a full disk) goes, rather than hold the space half written.
          await rm(path, { force: true });
          throw err;
        },
      );
      break;
    case 'symlink':
      await symlink(header.linkname, path);
      break;
    case 'link': {
      const target = await resolveInRoot(opts.root, posix.join(opts.dir, header.linkname), {
        followFinal: false,
      });
      // The target is an earlier entry or a file already there; a missing one is the archive's
      // fault, and the host path of the error would only leak where the container lives.
      if (!(await existing(target))) {
        throw new InvalidParameterError(
          `invalid archive entry ${JSON.stringify(header.name)}: hard link target ${JSON.stringify(header.linkname)} does not exist`,
        );
      }
      await link(target, path);
      return;
    }
    case 'fifo':
      await run('mkfifo', ['-m', (header.mode & 0o777).toString(8), path]);
      break;
    default: {
      const kind = header.type === 'block-device' ? 'b' : 'c';
      await run('mknod', [path, kind, String(header.devmajor), String(header.devminor)]);
    }
  }
  const uid = opts.keepOwners ? header.uid : 0;
  const gid = opts.keepOwners ? header.gid : 0;
  await lchown(path, uid, gid);
  if (header.type === 'symlink') {
    await lutimes(path, header.mtime, header.mtime).catch(() => undefined);
    return;
  }
  await chmod(path, header.mode & 0o7777);
  await utimes(path, header.mtime, header.mtime);
}

export async function extractTar(source: Readable, opts: ExtractOptions): Promise<void> {
  const { stream } = await decompress(source);
  const dirs: Array<{ path: string; mtime: Date }> = [];
  for await (const { header, body } of readTar(stream)) {
    if (header.name === '' || header.name === '.' || header.name === './') continue;
    // `..` may not climb above the extraction directory, let alone the root.
    const path = await resolveInRoot(opts.root, posix.join(opts.dir, ...confineName(header.name)));
    await mkdir(dirname(path), { recursive: true });
    await prepareTarget(path, header, opts);
    await writeEntry(path, header, body, opts);
    if (header.type === 'directory') dirs.push({ path, mtime: header.mtime });
  }
  // Directory times last: writing their children changed them.
  for (const d of dirs.reverse()) await utimes(d.path, d.mtime, d.mtime).catch(() => undefined);
}

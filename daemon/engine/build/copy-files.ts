// COPY and ADD: their sources found (in the context, or in another stage's or image's root
// filesystem), hashed for the cache, and copied into a step's root filesystem. Every path is
// resolved with the confinement helper, on both sides: a source cannot name anything outside its
// root and a destination symlink in the image cannot lead the copy out of the container's.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import {
  copyFile,
  lchown,
  lstat,
  lutimes,
  mkdir,
  readdir,
  readFile,
  readlink,
  rm,
  symlink,
  chmod,
  chown,
  utimes,
} from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { Stats } from 'node:fs';
import { InvalidParameterError } from '../../api/errors';
import { resolveInRoot } from '../../lib/tar/confine-path';
import { decompress, peek } from '../../lib/tar/decompress';
import { extractTar } from '../shared/tar-extract';
import type { BuildContext } from './build-context';
import { globRegExp } from './ignore-patterns';

/** One matched source: a host path inside `root`, and the name it is copied under. */
export interface CopySource {
  root: string;
  /** Relative to root, `/`-separated ('' for the root itself). */
  path: string;
  stats: Stats;
}

export interface Owner {
  uid: number;
  gid: number;
}

const globChars = /[*?[\\]/;

/** Go's filepath.Match over one path: `*` and `?` stay within a segment, `**` too. */
function matchGlob(pattern: string, path: string): boolean {
  return globRegExp(pattern, false).test(path);
}

/** A source as written, relative to its root; `..` past the root is refused, not clamped. */
function cleanSource(source: string): string {
  const parts: string[] = [];
  for (const part of source.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0)
        throw new InvalidParameterError(`forbidden path outside the build context: ${source}`);
      parts.pop();
    } else parts.push(part);
  }
  return parts.join('/');
}

async function sourceAt(root: string, path: string, written: string): Promise<CopySource> {
  const host = await resolveInRoot(root, path === '' ? '/' : path, { followFinal: true });
  const stats = await lstat(host).catch(() => undefined);
  if (!stats) {
    throw new InvalidParameterError(
      `file not found in build context or excluded by .dockerignore: stat ${written}: file does not exist`,
    );
  }
  return { root, path: host.slice(root.length).replace(/^\/+/, ''), stats };
}

/** Walks `root` for the paths a glob can match (only below its fixed leading directories). */
async function globIn(root: string, pattern: string): Promise<string[]> {
  const fixed = pattern.split('/');
  const firstGlob = fixed.findIndex((p) => globChars.test(p));
  const base = fixed.slice(0, firstGlob).join('/');
  const out: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > fixed.length) return;
    const host = await resolveInRoot(root, dir === '' ? '/' : dir, { followFinal: true });
    const names = await readdir(host).catch(() => [] as string[]);
    for (const name of names.sort()) {
      const path = dir === '' ? name : `${dir}/${name}`;
      if (matchGlob(pattern, path)) out.push(path);
      else if ((await lstat(join(host, name))).isDirectory()) await walk(path, depth + 1);
    }
  };
  await walk(base, firstGlob + 1);
  return out;
}

/** The sources of a COPY or ADD in the context (its index: what the ignore file left). */
export async function contextSources(context: BuildContext, sources: string[]): Promise<CopySource[]> {
  const out: CopySource[] = [];
  for (const written of sources) {
    const path = cleanSource(written);
    if (globChars.test(path)) {
      const matches = context
        .entries()
        .map((e) => e.path)
        .filter((p) => matchGlob(path, p));
      for (const m of matches) out.push(await sourceAt(context.root, m, written));
    } else {
      out.push(await sourceAt(context.root, path, written));
    }
  }
  if (out.length === 0) throw new InvalidParameterError('no source files were specified');
  return out;
}

/** The sources of `COPY --from`: paths in a stage's or an image's root filesystem. */
export async function rootfsSources(root: string, sources: string[]): Promise<CopySource[]> {
  const out: CopySource[] = [];
  for (const written of sources) {
    const path = cleanSource(written);
    const paths = globChars.test(path) ? await globIn(root, path) : [path];
    for (const p of paths) out.push(await sourceAt(root, p, written));
  }
  if (out.length === 0) throw new InvalidParameterError('no source files were specified');
  return out;
}

/** A content hash of the sources: names, types, modes, link targets and bytes, never times. */
export async function hashSources(sources: CopySource[]): Promise<string> {
  const hash = createHash('sha256');
  const visit = async (host: string, rel: string): Promise<void> => {
    const s = await lstat(host);
    const type = s.isDirectory() ? 'd' : s.isSymbolicLink() ? 'l' : 'f';
    hash.update(`${rel}\0${type}\0${(s.mode & 0o7777).toString(8)}\0`);
    if (type === 'l') hash.update(await readlink(host));
    else if (type === 'f') {
      for await (const chunk of createReadStream(host)) hash.update(chunk as Buffer);
    } else {
      for (const name of (await readdir(host)).sort()) await visit(join(host, name), `${rel}/${name}`);
    }
    hash.update('\n');
  };
  for (const source of sources) await visit(join(source.root, source.path), posix.basename(source.path));
  return hash.digest('hex');
}

export interface CopyOptions {
  /** The container's root filesystem on the host. */
  rootfs: string;
  /** Absolute destination in the container. */
  dest: string;
  /** The destination is a directory: written with a trailing `/`, or more than one source. */
  destIsDir: boolean;
  owner: Owner;
  /** ADD: a local tar archive (compressed or not) is unpacked at the destination. */
  extractArchives: boolean;
}

async function isDirectoryIn(root: string, path: string): Promise<boolean> {
  const host = await resolveInRoot(root, path, { followFinal: true });
  return (await lstat(host).catch(() => undefined))?.isDirectory() ?? false;
}

/** Creates the missing directories of `path` in the container, root-owned and 0755 as Docker's. */
export async function ensureDirectory(root: string, path: string, owner?: Owner): Promise<string> {
  const parts = path.split('/').filter(Boolean);
  let current = '';
  let host = root;
  for (const [i, part] of parts.entries()) {
    current += `/${part}`;
    host = await resolveInRoot(root, current, { followFinal: true });
    const s = await lstat(host).catch(() => undefined);
    if (s?.isDirectory()) continue;
    if (s) throw new InvalidParameterError(`cannot copy to ${path}: ${current} is not a directory`);
    await mkdir(host, { mode: 0o755 });
    if (owner && i === parts.length - 1) await chown(host, owner.uid, owner.gid);
  }
  return host;
}

async function isArchive(host: string): Promise<boolean> {
  const { stream } = await decompress(createReadStream(host)).catch(() => ({ stream: undefined }));
  if (!stream) return false;
  try {
    const { head } = await peek(stream, 262);
    return head.length >= 262 && head.subarray(257, 262).toString('latin1') === 'ustar';
  } catch {
    return false;
  } finally {
    stream.destroy();
  }
}

/** Copies one tree (or file) to `target` (a path in the container), keeping modes and times. */
async function copyTree(source: string, rootfs: string, target: string, owner: Owner): Promise<void> {
  const s = await lstat(source);
  const host = await resolveInRoot(rootfs, target);
  const old = await lstat(host).catch(() => undefined);
  if (s.isDirectory()) {
    if (old && !old.isDirectory()) await rm(host, { force: true });
    if (!old?.isDirectory()) await mkdir(host);
    for (const name of (await readdir(source)).sort()) {
      await copyTree(join(source, name), rootfs, posix.join(target, name), owner);
    }
    await chown(host, owner.uid, owner.gid);
    await chmod(host, s.mode & 0o7777);
    await utimes(host, s.atime, s.mtime);
    return;
  }
  if (old) await rm(host, { recursive: true, force: true });
  if (s.isSymbolicLink()) {
    await symlink(await readlink(source), host);
    await lchown(host, owner.uid, owner.gid);
    await lutimes(host, s.atime, s.mtime).catch(() => undefined);
    return;
  }
  await copyFile(source, host);
  await chown(host, owner.uid, owner.gid);
  await chmod(host, s.mode & 0o7777);
  await utimes(host, s.atime, s.mtime);
}

export async function copySources(sources: CopySource[], options: CopyOptions): Promise<void> {
  const { rootfs, dest, owner } = options;
  const intoDir = options.destIsDir || (await isDirectoryIn(rootfs, dest));
  for (const source of sources) {
    const host = join(source.root, source.path);
    if (source.stats.isDirectory()) {
      await ensureDirectory(rootfs, dest, owner);
      for (const name of (await readdir(host)).sort()) {
        await copyTree(join(host, name), rootfs, posix.join(dest, name), owner);
      }
      continue;
    }
    if (options.extractArchives && source.stats.isFile() && (await isArchive(host))) {
      await ensureDirectory(rootfs, dest);
      await extractTar(createReadStream(host), {
        root: rootfs,
        dir: dest,
        noOverwriteDirNonDir: false,
        keepOwners: true,
      });
      continue;
    }
    const target = intoDir ? posix.join(dest, posix.basename(source.path)) : dest;
    await ensureDirectory(rootfs, posix.dirname(target));
    await copyTree(host, rootfs, target, owner);
  }
}

/** `--chown=user:group` by name or number, names looked up in the container's passwd and group. */
export async function resolveOwner(rootfs: string, chownSpec: string): Promise<Owner> {
  if (chownSpec === '') return { uid: 0, gid: 0 };
  const [user, group] = chownSpec.split(':', 2);
  const lookup = async (file: string, name: string, what: string): Promise<{ id: number; gid?: number }> => {
    if (/^\d+$/.test(name)) return { id: Number(name) };
    const host = await resolveInRoot(rootfs, file, { followFinal: true });
    const text = await readFile(host, 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      const fields = line.split(':');
      if (fields[0] === name && fields.length >= 3) {
        return { id: Number(fields[2]), gid: fields.length >= 4 ? Number(fields[3]) : undefined };
      }
    }
    throw new InvalidParameterError(
      `unable to convert uid/gid chown string to host mapping: can't find ${what} for ${what === 'uid' ? 'user' : 'group'} ${name}: no such ${what === 'uid' ? 'user' : 'group'}: ${name}`,
    );
  };
  const u = await lookup('/etc/passwd', user, 'uid');
  if (group === undefined) return { uid: u.id, gid: /^\d+$/.test(user) ? u.id : (u.gid ?? u.id) };
  return { uid: u.id, gid: (await lookup('/etc/group', group, 'gid')).id };
}

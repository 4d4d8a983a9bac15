// Applying an image layer onto an active snapshot in svcd, in place of containerd's diff service:
// containerd hashes the uncompressed layer for its diff ID with Go's SHA-256 (~200 MB/s here, no
// SHA-NI), which made every layer's unpack a fifth of a second per 40 MB; OpenSSL does it at
// ~1.5 GB/s. The rules are those of containerd's applier: entries are resolved inside the
// snapshot (symlinks followed as if it were `/`, a `..` above it refused), OCI whiteouts become
// overlay whiteouts (a 0/0 character device, trusted.overlay.opaque on a directory) or, in a
// plain directory, removals; owners, modes, times and xattrs (SCHILY.xattr.*) are set. The caller
// commits the snapshot only when the returned digest is the diff ID it expects.
import { createHash } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import {
  chmod,
  lchown,
  link,
  lstat,
  lutimes,
  mkdir,
  mkdtemp,
  readdir,
  rename,
  rm,
  rmdir,
  symlink,
  utimes,
} from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InvalidParameterError } from '../../api/errors';
import { call, hostCalls } from '../../lib/host-calls';
import { confineName, resolveInRoot } from '../../lib/tar/confine-path';
import { decompress } from '../../lib/tar/decompress';
import { XATTR_PAX_PREFIX, type TarHeader } from '../../lib/tar/tar-header';
import { readTar } from '../../lib/tar/tar-reader';
import type { Mount } from './types';

/** Where a layer is applied: the snapshot's own directory, and how deletions are recorded. */
export interface LayerTarget {
  root: string;
  /** An overlay upper directory: deletions are whiteouts over the lower directories. */
  overlay: boolean;
  /** The parents' directories, top first: missing parents of an entry copy their metadata. */
  lowers: string[];
}

const S_IFCHR = 0o020000;
const S_IFBLK = 0o060000;
const WHITEOUT = '.wh.';
const OPAQUE = '.wh..wh..opq';
/** aufs' own records (`.wh..wh.plnk`...), which containerd skips too. */
const WHITEOUT_META = '.wh..wh.';

/** Layer media types this applier reads (the compression is told by the bytes). */
const tarLayer = /(layer\.v1\.tar|rootfs\.(foreign\.)?diff\.tar)(\+gzip|\+zstd|\.gzip)?$/;

let inUserNamespace: boolean | undefined;

/** Whiteout devices need mknod, which a user namespace refuses (containerd then mounts too). */
function userNamespaced(): boolean {
  if (inUserNamespace === undefined) {
    try {
      const map = readFileSync('/proc/self/uid_map', 'utf8').trim().split(/\s+/);
      inUserNamespace = !(map[0] === '0' && map[1] === '0' && map[2] === '4294967295');
    } catch {
      inUserNamespace = true;
    }
  }
  return inUserNamespace;
}

/** Whether svcd applies layers of this media type here. */
export function canApply(mediaType: string): boolean {
  return tarLayer.test(mediaType) && !userNamespaced() && !!hostCalls();
}

/**
 * Where svcd can apply a layer of `mediaType` onto `mounts` itself: a bind mount of the snapshot's
 * directory, or an overlay whose upper directory it is. Otherwise undefined: containerd applies it.
 */
export function layerTarget(mounts: Mount[], mediaType: string): LayerTarget | undefined {
  if (mounts.length !== 1 || !canApply(mediaType)) return undefined;
  const [m] = mounts;
  if (m.type === 'bind') return { root: m.source, overlay: false, lowers: [] };
  if (m.type !== 'overlay') return undefined;
  const option = (name: string) => m.options.find((o) => o.startsWith(`${name}=`))?.slice(name.length + 1);
  const upper = option('upperdir');
  if (!upper) return undefined;
  return { root: upper, overlay: true, lowers: option('lowerdir')?.split(':') ?? [] };
}

/** Hashes what passes through: the uncompressed layer, whose digest is its diff ID. */
class Digester extends Transform {
  private readonly hash = createHash('sha256');
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null, data?: Buffer) => void) {
    this.hash.update(chunk);
    cb(null, chunk);
  }
  digest(): string {
    return `sha256:${this.hash.digest('hex')}`;
  }
}

/** Applies the (compressed) layer `blob` onto `target`; returns the diff ID of what it read. */
export async function applyLayer(blob: Readable, target: LayerTarget, signal?: AbortSignal): Promise<string> {
  const applier = new Applier(target);
  const diffId = await applier.apply(blob, signal);
  await inheritParents(target, applier.createdParents);
  return diffId;
}

/** A layer applied into a directory of its own, to become a snapshot's directory (adoptLayer). */
export interface StagedLayer {
  diffId: string;
  /** Removes the directory, if it was not adopted. */
  discard(): Promise<void>;
}

interface Staged extends StagedLayer {
  dir: string;
  overlay: boolean;
  createdParents: string[];
}

/**
 * Applies a layer into a new directory under `stagingDir` (on the snapshots' file system), before
 * the snapshot it belongs in can be prepared: that needs its parent committed, so layers would
 * otherwise be applied one after the other. `overlay`: it will be an overlay upper directory
 * (not the bottom layer), so deletions are whiteouts.
 */
export async function stageLayer(
  blob: Readable,
  stagingDir: string,
  overlay: boolean,
  signal?: AbortSignal,
): Promise<StagedLayer> {
  await mkdir(stagingDir, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(path.join(stagingDir, 'layer-'));
  const discard = () => rm(dir, { recursive: true, force: true });
  try {
    const applier = new Applier({ root: dir, overlay, lowers: [] });
    const diffId = await applier.apply(blob, signal);
    const staged: Staged = { diffId, discard, dir, overlay, createdParents: applier.createdParents };
    return staged;
  } catch (err) {
    await discard();
    throw err;
  }
}

/**
 * Moves a staged layer into the snapshot `mounts` name, whose directory must still be empty;
 * false when they are not what it was staged for (the caller applies the layer in place).
 */
export async function adoptLayer(layer: StagedLayer, mounts: Mount[], mediaType: string): Promise<boolean> {
  const staged = layer as Staged;
  const target = layerTarget(mounts, mediaType);
  if (!target || target.overlay !== staged.overlay || (await readdir(target.root)).length > 0) return false;
  await inheritParents({ ...target, root: staged.dir }, staged.createdParents);
  // The snapshot directory's own owner, mode and times are containerd's, as when applied in place.
  const own = await lstat(target.root);
  await rmdir(target.root);
  await rename(staged.dir, target.root);
  await lchown(target.root, own.uid, own.gid);
  await chmodExact(target.root, own.mode);
  await utimes(target.root, own.atime, own.mtime);
  return true;
}

/**
 * The directories above entries that the layer did not list: in an overlay upper directory one
 * would hide the lower directory's owner and mode, so it takes them from the topmost parent layer
 * that has it, as containerd does (a lower non-directory was replaced: nothing to inherit).
 */
async function inheritParents(target: LayerTarget, created: string[]): Promise<void> {
  if (!target.overlay) return;
  for (const rel of created) {
    for (const lower of target.lowers) {
      const info = await exists(path.join(lower, rel));
      if (!info) continue;
      if (!info.isDirectory()) break;
      const dir = path.join(target.root, rel);
      await lchown(dir, info.uid, info.gid);
      await chmodExact(dir, info.mode);
      await utimes(dir, info.atime, info.mtime);
      break;
    }
  }
}

const exists = (p: string) => lstat(p).catch(() => undefined);

class Applier {
  /** What this layer wrote: a plain directory's opaque whiteout removes all else. */
  private readonly written = new Set<string>();
  private readonly dirs: { path: string; header: TarHeader }[] = [];
  /** Directories made above entries the layer did not list, relative to the root, parents first. */
  readonly createdParents: string[] = [];

  constructor(private readonly target: LayerTarget) {}

  /** Applies the (compressed) layer; returns the digest of the tar read, its diff ID. */
  async apply(blob: Readable, signal?: AbortSignal): Promise<string> {
    const { stream } = await decompress(blob);
    const digester = new Digester();
    stream.on('error', (err) => digester.destroy(err));
    for await (const { header, body } of readTar(stream.pipe(digester))) {
      signal?.throwIfAborted();
      await this.entry(header, body);
    }
    // Directory times last: what was written into them changed them.
    for (const { path: dir, header } of this.dirs.reverse()) await utimes(dir, header.mtime, header.mtime);
    return digester.digest();
  }

  private async entry(header: TarHeader, body: Readable): Promise<void> {
    const parts = confineName(header.name);
    if (parts.length === 0) return;
    const base = parts.pop()!;
    const parent = await resolveInRoot(this.target.root, parts.join('/'), { followFinal: true });
    await this.makeParents(parent);
    if (base.startsWith(WHITEOUT)) return this.whiteout(parent, base, header);
    const file = path.join(parent, base);
    const old = await exists(file);
    if (old && !(old.isDirectory() && header.type === 'directory')) await rm(file, { recursive: true });
    await this.create(file, [...parts, base], header, body);
    this.written.add(file);
    await lchown(file, header.uid, header.gid);
    for (const [key, value] of Object.entries(header.pax)) {
      if (!key.startsWith(XATTR_PAX_PREFIX)) continue;
      const name = key.slice(XATTR_PAX_PREFIX.length);
      await call((done) => hostCalls()!.lsetxattr(file, name, Buffer.from(value, 'latin1'), done)).catch(
        (err: NodeJS.ErrnoException) => {
          // As containerd: a file system without xattrs of that kind loses them.
          if (err.code !== 'ENOTSUP' && err.code !== 'EOPNOTSUPP') throw err;
        },
      );
    }
    if (header.type === 'symlink') {
      await lutimes(file, header.mtime, header.mtime).catch(() => undefined);
      return;
    }
    // After lchown, which clears set-user-ID and set-group-ID bits.
    await chmodExact(file, header.mode);
    if (header.type === 'directory') this.dirs.push({ path: file, header });
    else await utimes(file, header.mtime, header.mtime);
  }

  private async create(file: string, parts: string[], header: TarHeader, body: Readable): Promise<void> {
    const { root } = this.target;
    switch (header.type) {
      case 'directory':
        await mkdir(file, { mode: 0o755 }).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw err;
        });
        return;
      case 'file':
        await pipeline(body, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
        return;
      case 'symlink':
        // A relative target may not climb above the layer's root (Docker refuses these too).
        if (!header.linkname.startsWith('/')) {
          try {
            confineName([...parts.slice(0, -1), header.linkname].join('/'));
          } catch {
            throw new InvalidParameterError(
              `invalid layer entry ${JSON.stringify(header.name)}: symlink target ${JSON.stringify(header.linkname)} escapes the root`,
            );
          }
        }
        await symlink(header.linkname, file);
        return;
      case 'link': {
        // Within this layer, as containerd: a link into a lower layer is not followed there.
        const to = await resolveInRoot(root, header.linkname, { followFinal: false });
        if (!(await exists(to))) {
          throw new InvalidParameterError(
            `invalid layer entry ${JSON.stringify(header.name)}: hard link target ${JSON.stringify(header.linkname)} does not exist`,
          );
        }
        await link(to, file);
        return;
      }
      case 'fifo':
        await call((done) => hostCalls()!.mkfifo([file], header.mode & 0o777, done));
        return;
      default: {
        const type = header.type === 'block-device' ? S_IFBLK : S_IFCHR;
        await call((done) =>
          hostCalls()!.mknod(file, type | (header.mode & 0o777), header.devmajor, header.devminor, done),
        );
      }
    }
  }

  private async whiteout(dir: string, base: string, header: TarHeader): Promise<void> {
    if (base === OPAQUE) {
      if (this.target.overlay) {
        await call((done) => hostCalls()!.lsetxattr(dir, 'trusted.overlay.opaque', Buffer.from('y'), done));
        return;
      }
      for (const name of await readdir(dir)) {
        const child = path.join(dir, name);
        if (!this.written.has(child)) await rm(child, { recursive: true, force: true });
      }
      return;
    }
    if (base.startsWith(WHITEOUT_META)) return;
    const hidden = path.join(dir, base.slice(WHITEOUT.length));
    await rm(hidden, { recursive: true, force: true });
    if (!this.target.overlay) return;
    await call((done) => hostCalls()!.mknod(hidden, S_IFCHR, 0, 0, done));
    await lchown(hidden, header.uid, header.gid);
  }

  private async makeParents(dir: string): Promise<void> {
    const { root } = this.target;
    if (await exists(dir)) return;
    let at = root;
    for (const part of path.relative(root, dir).split(path.sep)) {
      at = path.join(at, part);
      if (await exists(at)) continue;
      await mkdir(at, { mode: 0o755 });
      this.createdParents.push(path.relative(root, at));
    }
  }
}

const chmodExact = (file: string, mode: number) => chmod(file, mode & 0o7777);

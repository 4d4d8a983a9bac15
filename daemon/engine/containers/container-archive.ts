// The archive endpoints (HEAD/GET/PUT /containers/{id}/archive, and copy before 1.24): a path
// in the container is found in its root filesystem or, under a bind or volume mount, in the
// mount's host directory, always resolved with the confinement helper.
import { lstat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import type { ContainerPathStat } from '../../api/container-summary-types';
import { ForbiddenError, InvalidParameterError, NotFoundError } from '../../api/errors';
import { resolveInRoot } from '../../lib/tar/confine-path';
import type { ContainerRecord } from './container-record';
import { tarSources } from '../shared/tar-directory';
import { extractTar } from '../shared/tar-extract';

interface Located {
  root: string;
  /** The path relative to `root`. */
  rel: string;
  readOnly: boolean;
  inVolume: boolean;
}

function locate(record: ContainerRecord, abs: string): Located {
  // /etc/hostname, /etc/hosts and /etc/resolv.conf are svcd's files bind-mounted over the
  // image's: the container reads those, and so does a copy out of it.
  const generated = generatedFile(record, abs);
  if (generated)
    return {
      root: posix.dirname(generated),
      rel: `/${posix.basename(generated)}`,
      readOnly: false,
      inVolume: true,
    };
  let best: Located = {
    root: record.Rootfs,
    rel: abs,
    readOnly: !!record.HostConfig.ReadonlyRootfs,
    inVolume: false,
  };
  let bestLength = -1;
  for (const m of record.Mounts) {
    if (m.Type === 'tmpfs') continue;
    const dest = m.Destination;
    if ((abs === dest || abs.startsWith(`${dest}/`)) && dest.length > bestLength) {
      bestLength = dest.length;
      best = { root: m.Source, rel: abs.slice(dest.length) || '/', readOnly: m.ReadOnly, inVolume: true };
    }
  }
  return best;
}

function generatedFile(record: ContainerRecord, abs: string): string | undefined {
  const files: Record<string, string | undefined> = {
    '/etc/hostname': record.Files.hostnamePath,
    '/etc/hosts': record.Files.hostsPath,
    '/etc/resolv.conf': record.Files.resolvConfPath,
  };
  return files[abs] || undefined;
}

const goModeBits = {
  dir: 2 ** 31,
  symlink: 2 ** 27,
  device: 2 ** 26,
  pipe: 2 ** 25,
  socket: 2 ** 24,
  setuid: 2 ** 23,
  setgid: 2 ** 22,
  charDevice: 2 ** 21,
  sticky: 2 ** 20,
};

/** Go's os.FileMode, which clients decode from the stat header. */
function goFileMode(s: Stats): number {
  let mode = s.mode & 0o777;
  if (s.isDirectory()) mode += goModeBits.dir;
  if (s.isSymbolicLink()) mode += goModeBits.symlink;
  if (s.isBlockDevice()) mode += goModeBits.device;
  if (s.isCharacterDevice()) mode += goModeBits.device + goModeBits.charDevice;
  if (s.isFIFO()) mode += goModeBits.pipe;
  if (s.isSocket()) mode += goModeBits.socket;
  if (s.mode & 0o4000) mode += goModeBits.setuid;
  if (s.mode & 0o2000) mode += goModeBits.setgid;
  if (s.mode & 0o1000) mode += goModeBits.sticky;
  return mode;
}

interface Resolved {
  stat: ContainerPathStat;
  hostPath: string;
  stats: Stats;
  /** `/.` at the end: the directory's contents, not the directory. */
  contentsOnly: boolean;
}

export class ContainerArchive {
  constructor(private readonly record: ContainerRecord) {}

  private async resolve(path: string): Promise<Resolved> {
    if (path === '') throw new InvalidParameterError('Path cannot be empty');
    const abs = posix.join('/', path);
    const assertDir = path.endsWith('/') || path.endsWith('/.');
    const contentsOnly = path.endsWith('/.');
    const where = locate(this.record, abs);
    // A trailing separator asserts a directory, so a final symlink is followed then.
    const hostPath = await resolveInRoot(where.root, where.rel, { followFinal: assertDir });
    const stats = await lstat(hostPath).catch(() => undefined);
    if (!stats)
      throw new NotFoundError(`Could not find the file ${path} in container ${this.record.Name.slice(1)}`);
    if (assertDir && !stats.isDirectory()) throw new InvalidParameterError(`not a directory: ${path}`);
    const linkTarget = stats.isSymbolicLink()
      ? posix.join(
          '/',
          (await resolveInRoot(where.root, where.rel, { followFinal: true })).slice(where.root.length),
        )
      : '';
    return {
      stat: {
        name: contentsOnly ? '.' : posix.basename(abs) || '/',
        size: stats.size,
        mode: goFileMode(stats),
        mtime: stats.mtime.toISOString(),
        linkTarget,
      },
      hostPath,
      stats,
      contentsOnly,
    };
  }

  async stat(path: string): Promise<ContainerPathStat> {
    return (await this.resolve(path)).stat;
  }

  async get(path: string): Promise<{ stat: ContainerPathStat; archive: Readable }> {
    const r = await this.resolve(path);
    const name = r.contentsOnly ? '.' : r.stat.name;
    return {
      stat: r.stat,
      archive: tarSources([{ hostPath: r.hostPath, name }], this.mountedBelow(posix.join('/', path), name)),
    };
  }

  /**
   * What the container sees below a directory that the root filesystem does not hold: svcd's
   * generated files and bind and volume mounts, by their name in the archive of `abs`.
   */
  private mountedBelow(abs: string, name: string): Map<string, string> {
    const below = new Map<string, string>();
    if (!abs.endsWith('/')) abs += '/';
    const destinations = [
      ...['/etc/hostname', '/etc/hosts', '/etc/resolv.conf'].map(
        (d) => [d, generatedFile(this.record, d)] as const,
      ),
      ...this.record.Mounts.filter((m) => m.Type !== 'tmpfs').map((m) => [m.Destination, m.Source] as const),
    ];
    for (const [destination, source] of destinations) {
      if (!source || !destination.startsWith(abs)) continue;
      const rest = destination.slice(abs.length);
      // Named as the tree walk names entries (tar-directory.ts).
      below.set(name === '' ? rest : `${name}/${rest}`, source);
    }
    return below;
  }

  async put(
    path: string,
    body: Readable,
    opts: { noOverwriteDirNonDir: boolean; copyUIDGID: boolean },
  ): Promise<void> {
    const r = await this.resolve(path);
    const abs = posix.join('/', path);
    const where = locate(this.record, abs);
    if (!r.stats.isDirectory())
      throw new InvalidParameterError(`extraction point is not a directory: ${path}`);
    if (where.readOnly) {
      throw new ForbiddenError(
        where.inVolume ? 'mounted volume is marked read-only' : 'container rootfs is marked read-only',
      );
    }
    const dir = posix.join('/', r.hostPath.slice(where.root.length));
    await extractTar(body, {
      root: where.root,
      dir,
      noOverwriteDirNonDir: opts.noOverwriteDirNonDir,
      keepOwners: opts.copyUIDGID,
    });
  }
}

export function exportRootfs(record: ContainerRecord): Readable {
  return tarSources([{ hostPath: record.Rootfs, name: '' }]);
}

// A container's root filesystem: an init layer (the mount points runc needs, as dockerd's
// "-init" layer, so they never show up in changes or commits) on the image's top snapshot, the
// container's writable snapshot on top, mounted by svcd at <container dir>/rootfs.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError, NotFoundError, SystemError } from '../../api/errors';
import type { ContainerdClient } from '../../runtime/containerd/client';
import type { Mount } from '../../runtime/containerd/types';
import type { ContainerChange } from '../../api/container-summary-types';
import { withLease } from '../images/lease';
import { copyChanges, layerChanges } from './container-changes';
import { isMounted, mountSnapshot, unmount } from '../shared/mounts';

/** Snapshots svcd manages itself must survive containerd's garbage collection. */
const gcRoot = { 'containerd.io/gc.root': new Date(0).toISOString() };

const initDirs = ['dev/pts', 'dev/shm', 'proc', 'sys', 'etc'];
const initFiles = ['etc/hosts', 'etc/hostname', 'etc/resolv.conf', 'dev/console'];

/** One init layer per image: its content is the same for every container made from it. */
export function initSnapshotKey(parent: string): string {
  return `svc-init:${parent}`;
}

/** The directory a snapshot's own changes live in (overlay upperdir, or the bind source). */
export function upperDirOf(mounts: Mount[]): string {
  const m = mounts[0];
  if (!m) throw new SystemError('snapshot has no mounts');
  if (m.type === 'bind') return m.source;
  const upper = m.options.find((o) => o.startsWith('upperdir='));
  if (!upper) throw new SystemError('snapshot mount has no upperdir (read-only view)');
  return upper.slice('upperdir='.length);
}

/** The read-only layers below a snapshot's own, topmost first. */
export function lowerDirsOf(mounts: Mount[]): string[] {
  const m = mounts[0];
  if (!m || m.type === 'bind') return [];
  const lower = m.options.find((o) => o.startsWith('lowerdir='));
  return lower ? lower.slice('lowerdir='.length).split(':') : [];
}

async function populateInitLayer(dir: string): Promise<void> {
  for (const d of initDirs) await mkdir(join(dir, d), { recursive: true, mode: 0o755 });
  for (const f of initFiles) await writeFile(join(dir, f), '', { mode: 0o755 });
  await symlink('/proc/mounts', join(dir, 'etc/mtab')).catch(() => undefined);
}

/** The image's committed snapshot, and how to make it if it is missing. */
export interface ImageSnapshot {
  chainId: string;
  unpack: () => Promise<unknown>;
}

/** How a container's layer is mounted (ContainerRootfs.prepare). */
export interface LayerOptions {
  /** The layer was never made: neither the mount table nor containerd need be asked. */
  fresh: boolean;
  /** The container's image, asked for only if its init layer is to be made again. */
  image: () => Promise<ImageSnapshot>;
}

/** How long an unused init layer is kept for the next container of its image. */
const initLayerLingerMs = 60_000;

export class ContainerRootfs {
  /** Serialises creation and removal of the shared init layers. */
  private initLock: Promise<unknown> = Promise.resolve();
  private readonly lingering = new Map<string, NodeJS.Timeout>();
  /**
   * Targets this svcd mounted and has not unmounted: their start and removal skip reading the
   * mount table (which grows with every container).
   */
  private readonly mounted = new Set<string>();
  /** Mounts under way (prepare), by target. */
  private readonly preparing = new Map<string, Promise<void>>();
  /** Init layers known to exist (made or seen by this svcd): a create need not ask containerd. */
  private readonly initLayers = new Set<string>();

  constructor(private readonly client: ContainerdClient) {}

  private withInitLock<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.initLock.then(fn, fn);
    this.initLock = run.catch(() => undefined);
    return run;
  }

  /** The init layer on the image's snapshot, made once and shared by the image's containers. */
  initLayer(image: ImageSnapshot): Promise<string> {
    const snapshots = this.client.snapshots;
    const parent = image.chainId;
    const initKey = initSnapshotKey(parent);
    clearTimeout(this.lingering.get(initKey));
    this.lingering.delete(initKey);
    return this.withInitLock(async () => {
      if (this.initLayers.has(initKey)) return initKey;
      const exists = await snapshots.stat(initKey).then(
        () => true,
        () => false,
      );
      if (exists) {
        this.initLayers.add(initKey);
        return initKey;
      }
      // The init layer keeps the image's snapshots; without it they may be gone, or never made.
      await image.unpack();
      const active = `${initKey}-active`;
      await snapshots.remove(active).catch(() => undefined);
      const mounts = await snapshots.prepare(active, parent, gcRoot);
      try {
        await populateInitLayer(upperDirOf(mounts));
        await snapshots.commit(initKey, active, gcRoot);
        this.initLayers.add(initKey);
      } catch (err) {
        await snapshots.remove(active).catch(() => undefined);
        throw err;
      }
      return initKey;
    });
  }

  /**
   * Mounts the container's writable layer on the init layer at `target`, the layer made first
   * when it is missing: a create leaves that to the first call that needs the files (see
   * container-prepare.ts).
   */
  async prepare(id: string, initKey: string, target: string, opts: LayerOptions): Promise<void> {
    if (this.mounted.has(target)) return;
    // Calls side by side (a copy into the container while it starts) make it once.
    let work = this.preparing.get(target);
    if (!work) {
      work = this.mountLayer(id, initKey, target, opts).finally(() => this.preparing.delete(target));
      this.preparing.set(target, work);
    }
    return work;
  }

  private async mountLayer(id: string, initKey: string, target: string, opts: LayerOptions): Promise<void> {
    if (!opts.fresh && (await isMounted(target))) {
      this.mounted.add(target);
      return;
    }
    const existing = opts.fresh
      ? undefined
      : await this.client.snapshots.mounts(id).catch((err: unknown) => {
          if (!(err instanceof NotFoundError)) throw err;
          return undefined;
        });
    const mounts = existing ?? (await this.makeLayer(id, initKey, opts.image));
    await mountSnapshot(mounts, target);
    this.mounted.add(target);
  }

  private async makeLayer(
    id: string,
    initKey: string,
    image: () => Promise<ImageSnapshot>,
  ): Promise<Mount[]> {
    const snapshots = this.client.snapshots;
    return snapshots.prepare(id, initKey, gcRoot).catch(async (err: unknown) => {
      if (!(err instanceof NotFoundError)) throw err;
      // The init layer went behind svcd's back: made again.
      this.initLayers.delete(initKey);
      await this.initLayer(await image());
      return snapshots.prepare(id, initKey, gcRoot);
    });
  }

  private async unmount(target: string): Promise<void> {
    await unmount(target, this.mounted.has(target));
    this.mounted.delete(target);
  }

  /** Unmounts a rootfs no task uses, so a stopped svcd leaves no mounts behind. */
  async release(target: string): Promise<void> {
    await this.unmount(target).catch(() => undefined);
  }

  async upperDir(id: string): Promise<string> {
    return upperDirOf(await this.client.snapshots.mounts(id));
  }

  /**
   * What the container changed: its overlay upper layer against the layers below, or with the
   * native driver its full copy against a view (another copy) of its init layer.
   */
  async changes(id: string, initKey: string): Promise<ContainerChange[]> {
    const mounts = await this.client.snapshots.mounts(id);
    if (mounts[0]?.type !== 'bind') return layerChanges(upperDirOf(mounts), lowerDirsOf(mounts));
    return withLease(this.client, async (leased) => {
      const viewKey = `${id}-changes-${randomBytes(4).toString('hex')}`;
      const base = await leased.snapshots.view(viewKey, initKey);
      try {
        return await copyChanges(upperDirOf(mounts), upperDirOf(base));
      } finally {
        await leased.snapshots.remove(viewKey).catch(() => undefined);
      }
    });
  }

  /**
   * Bytes the container added or changed, as dockerd counts them: the apparent sizes of the
   * files in its writable layer, directories not counted and hard links once (containerd's usage
   * counts blocks, directories included, so an untouched layer would not read 0). With the
   * native driver, the files its changes name.
   */
  async sizeRw(id: string, initKey: string): Promise<number> {
    const mounts = await this.client.snapshots.mounts(id);
    const upper = upperDirOf(mounts);
    if (mounts[0]?.type === 'bind') {
      let total = 0;
      for (const change of await this.changes(id, initKey)) {
        if (change.Kind === 2) continue;
        const info = await lstat(join(upper, change.Path));
        if (!info.isDirectory()) total += info.size;
      }
      return total;
    }
    const seen = new Set<string>();
    const walk = async (dir: string): Promise<number> => {
      let total = 0;
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          total += await walk(path);
          continue;
        }
        const info = await lstat(path);
        if (info.nlink > 1) {
          const key = `${info.dev}:${info.ino}`;
          if (seen.has(key)) continue;
          seen.add(key);
        }
        total += info.size;
      }
      return total;
    };
    return walk(upper);
  }

  /** Unmounts and removes the container's writable layer. */
  async removeLayer(id: string, target: string): Promise<void> {
    await this.unmount(target);
    await this.client.snapshots.remove(id).catch((err: unknown) => {
      if (!(err instanceof NotFoundError)) throw err;
    });
  }

  /**
   * A container on the init layer went. The init layer goes a while after its last container
   * (`shared` false), unless another container comes for it: until then it keeps the image's
   * layers from containerd's garbage collection, which takes them after.
   */
  leaveInitLayer(initKey: string, shared: boolean): void {
    if (shared) return;
    clearTimeout(this.lingering.get(initKey));
    const timer = setTimeout(() => {
      this.lingering.delete(initKey);
      void this.removeInitLayer(initKey).catch(() => undefined);
    }, initLayerLingerMs);
    timer.unref();
    this.lingering.set(initKey, timer);
  }

  /**
   * Removes the init layer on an image's top snapshot now rather than after its linger, so the
   * image's layers go with the image; one a container was created on meanwhile stays.
   */
  releaseInitLayer(chainId: string): Promise<void> {
    const initKey = initSnapshotKey(chainId);
    clearTimeout(this.lingering.get(initKey));
    this.lingering.delete(initKey);
    return this.removeInitLayer(initKey);
  }

  private removeInitLayer(initKey: string): Promise<void> {
    return this.withInitLock(() => {
      this.initLayers.delete(initKey);
      return this.client.snapshots.remove(initKey).catch((err: unknown) => {
        // Another container was created on it meanwhile: it stays.
        if (!(err instanceof NotFoundError) && !(err instanceof ConflictError)) throw err;
      });
    });
  }

  /** Removes the init layers no container stands on (left by an svcd that stopped). */
  async sweepInitLayers(inUse: Set<string>): Promise<void> {
    for (const info of await this.client.snapshots.list()) {
      if (info.name.startsWith('svc-init:') && !inUse.has(info.name))
        await this.removeInitLayer(info.name).catch(() => undefined);
    }
  }
}

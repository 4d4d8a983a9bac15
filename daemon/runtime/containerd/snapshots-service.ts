// Filesystem snapshots (overlayfs by default, or native: storage-driver.ts): committed layers and active container roots.
import type { Rpc } from './rpc';
import { toDate, toMount, type Labels, type Mount, type WireTimestamp } from './types';

export type SnapshotKind = 'UNKNOWN' | 'VIEW' | 'ACTIVE' | 'COMMITTED';

export interface SnapshotInfo {
  name: string;
  parent: string;
  kind: SnapshotKind;
  labels: Labels;
  createdAt: Date | undefined;
  updatedAt: Date | undefined;
}

export interface SnapshotUsage {
  size: number;
  inodes: number;
}

type WireInfo = Omit<SnapshotInfo, 'createdAt' | 'updatedAt'> & {
  createdAt: WireTimestamp | null;
  updatedAt: WireTimestamp | null;
};

function toInfo(i: WireInfo): SnapshotInfo {
  return { ...i, createdAt: toDate(i.createdAt), updatedAt: toDate(i.updatedAt) };
}

const service = 'snapshots.v1.Snapshots';
export const defaultSnapshotter = 'overlayfs';

export class SnapshotsService {
  constructor(
    private readonly rpc: Rpc,
    readonly snapshotter = defaultSnapshotter,
  ) {}

  /** An active (writable) snapshot on top of `parent` (a committed name, or '' for empty). */
  async prepare(key: string, parent = '', labels: Labels = {}): Promise<Mount[]> {
    return this.mountsOf('Prepare', { key, parent, labels });
  }

  /** A read-only view of `parent`. */
  async view(key: string, parent: string, labels: Labels = {}): Promise<Mount[]> {
    return this.mountsOf('View', { key, parent, labels });
  }

  async mounts(key: string): Promise<Mount[]> {
    return this.mountsOf('Mounts', { key });
  }

  private async mountsOf(method: string, req: object): Promise<Mount[]> {
    const res = await this.rpc.unary<{ mounts: Mount[] }>(service, method, {
      snapshotter: this.snapshotter,
      ...req,
    });
    return res.mounts.map(toMount);
  }

  /** Turns the active snapshot `key` into the committed snapshot `name`. */
  async commit(name: string, key: string, labels: Labels = {}): Promise<void> {
    await this.rpc.unary(service, 'Commit', { snapshotter: this.snapshotter, name, key, labels });
  }

  async remove(key: string): Promise<void> {
    await this.rpc.unary(service, 'Remove', { snapshotter: this.snapshotter, key });
  }

  async stat(key: string): Promise<SnapshotInfo> {
    const res = await this.rpc.unary<{ info: WireInfo }>(service, 'Stat', {
      snapshotter: this.snapshotter,
      key,
    });
    return toInfo(res.info);
  }

  /** Disk usage of the snapshot's own layer (not its parents). */
  async usage(key: string): Promise<SnapshotUsage> {
    const res = await this.rpc.unary<SnapshotUsage>(service, 'Usage', { snapshotter: this.snapshotter, key });
    return { size: res.size, inodes: res.inodes };
  }

  async list(filters: string[] = []): Promise<SnapshotInfo[]> {
    const all: SnapshotInfo[] = [];
    const pages = this.rpc.serverStream<{ info: WireInfo[] }>(service, 'List', {
      snapshotter: this.snapshotter,
      filters,
    });
    for await (const page of pages) all.push(...page.info.map(toInfo));
    return all;
  }
}

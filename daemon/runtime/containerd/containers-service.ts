// containerd container records: metadata only (spec, snapshot, runtime); processes are tasks.
import { packJson, specTypeUrl, unpackJson } from './any';
import type { Rpc } from './rpc';
import { defaultSnapshotter } from './snapshots-service';
import { toDate, type Labels, type WireAny, type WireTimestamp } from './types';

/** The shim runtime every svcd container runs under. */
export const runcRuntime = 'io.containerd.runc.v2';

export interface NewContainerdContainer {
  id: string;
  /** The OCI runtime spec, stored by containerd as JSON. */
  spec: object;
  image?: string;
  labels?: Labels;
  /** Defaults to the client's snapshotter when a snapshotKey is given. */
  snapshotter?: string;
  snapshotKey?: string;
  runtime?: { name: string; options?: WireAny };
}

export interface ContainerdContainer {
  id: string;
  image: string;
  labels: Labels;
  runtime: { name: string };
  spec: object | undefined;
  snapshotter: string;
  snapshotKey: string;
  createdAt: Date | undefined;
  updatedAt: Date | undefined;
}

/** Fields `update` may change; containerd's update mask names for them. */
export interface ContainerdContainerChanges {
  labels?: Labels;
  spec?: object;
  image?: string;
  snapshotKey?: string;
}
const updateMaskPaths: Record<keyof ContainerdContainerChanges, string> = {
  labels: 'labels',
  spec: 'spec',
  image: 'image',
  snapshotKey: 'snapshotkey',
};

interface WireContainer {
  id: string;
  image: string;
  labels: Labels;
  runtime: { name: string } | null;
  spec: WireAny | null;
  snapshotter: string;
  snapshotKey: string;
  createdAt: WireTimestamp | null;
  updatedAt: WireTimestamp | null;
}

function fromWire(c: WireContainer): ContainerdContainer {
  return {
    id: c.id,
    image: c.image,
    labels: c.labels,
    runtime: { name: c.runtime?.name ?? '' },
    spec: unpackJson<object>(c.spec, specTypeUrl),
    snapshotter: c.snapshotter,
    snapshotKey: c.snapshotKey,
    createdAt: toDate(c.createdAt),
    updatedAt: toDate(c.updatedAt),
  };
}

const service = 'containers.v1.Containers';

export class ContainerdContainersService {
  constructor(
    private readonly rpc: Rpc,
    private readonly snapshotter = defaultSnapshotter,
  ) {}

  async create(c: NewContainerdContainer): Promise<ContainerdContainer> {
    const container = {
      id: c.id,
      image: c.image ?? '',
      labels: c.labels ?? {},
      runtime: c.runtime ?? { name: runcRuntime },
      spec: packJson(specTypeUrl, c.spec),
      snapshotter: c.snapshotter ?? (c.snapshotKey ? this.snapshotter : ''),
      snapshotKey: c.snapshotKey ?? '',
    };
    const res = await this.rpc.unary<{ container: WireContainer }>(service, 'Create', { container });
    return fromWire(res.container);
  }

  async get(id: string): Promise<ContainerdContainer> {
    const res = await this.rpc.unary<{ container: WireContainer }>(service, 'Get', { id });
    return fromWire(res.container);
  }

  /** Filters use containerd's syntax, e.g. `labels."svc.name"==web`; several are ORed. */
  async list(filters: string[] = []): Promise<ContainerdContainer[]> {
    const res = await this.rpc.unary<{ containers: WireContainer[] }>(service, 'List', { filters });
    return res.containers.map(fromWire);
  }

  /** Replaces the given fields (a whole label map replaces the old one). */
  async update(id: string, changes: ContainerdContainerChanges): Promise<ContainerdContainer> {
    const keys = Object.keys(changes) as (keyof ContainerdContainerChanges)[];
    const container = {
      id,
      labels: changes.labels ?? {},
      image: changes.image ?? '',
      snapshotKey: changes.snapshotKey ?? '',
      spec: changes.spec === undefined ? undefined : packJson(specTypeUrl, changes.spec),
    };
    const updateMask = { paths: keys.map((k) => updateMaskPaths[k]) };
    const res = await this.rpc.unary<{ container: WireContainer }>(service, 'Update', {
      container,
      updateMask,
    });
    return fromWire(res.container);
  }

  async delete(id: string): Promise<void> {
    await this.rpc.unary(service, 'Delete', { id });
  }
}

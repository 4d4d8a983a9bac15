// Leases protect content and snapshots from garbage collection while an operation builds them.
import { randomBytes } from 'node:crypto';
import type { Rpc } from './rpc';
import { toDate, type Labels, type WireTimestamp } from './types';

export interface Lease {
  id: string;
  createdAt: Date | undefined;
  labels: Labels;
}

interface WireLease {
  id: string;
  createdAt: WireTimestamp | null;
  labels: Labels;
}

function toLease(l: WireLease): Lease {
  return { id: l.id, createdAt: toDate(l.createdAt), labels: l.labels };
}

const service = 'leases.v1.Leases';

export class LeasesService {
  constructor(private readonly rpc: Rpc) {}

  /**
   * Creates a lease (random ID unless given). `expiresInMs` makes containerd drop it by itself,
   * so a crash in the middle of a pull cannot pin its blobs forever.
   */
  async create(opts: { id?: string; labels?: Labels; expiresInMs?: number } = {}): Promise<Lease> {
    const labels = { ...opts.labels };
    if (opts.expiresInMs !== undefined) {
      labels['containerd.io/gc.expire'] = new Date(Date.now() + opts.expiresInMs).toISOString();
    }
    const id = opts.id ?? `svc-${randomBytes(8).toString('hex')}`;
    const res = await this.rpc.unary<{ lease: WireLease }>(service, 'Create', { id, labels });
    return toLease(res.lease);
  }

  /** `sync` waits for the garbage collection the deletion triggers. */
  async delete(id: string, sync = false): Promise<void> {
    await this.rpc.unary(service, 'Delete', { id, sync });
  }

  async list(filters: string[] = []): Promise<Lease[]> {
    const res = await this.rpc.unary<{ leases: WireLease[] }>(service, 'List', { filters });
    return res.leases.map(toLease);
  }
}

// Layer apply and diff, done by containerd's walking differ (whiteouts included).
import type { Rpc } from './rpc';
import { toDescriptor, type Descriptor, type Labels, type Mount } from './types';

export interface DiffOptions {
  /** Layer media type; containerd's default is a gzip-compressed OCI layer. */
  mediaType?: string;
  /** Ingest ref of the new blob in the content store. */
  ref?: string;
  labels?: Labels;
}

const service = 'diff.v1.Diff';

export class DiffService {
  constructor(private readonly rpc: Rpc) {}

  /** Unpacks the layer blob `layer` (from the content store) onto `mounts`; returns what was applied. */
  async apply(layer: Descriptor, mounts: Mount[]): Promise<Descriptor> {
    const res = await this.rpc.unary<{ applied: Descriptor }>(service, 'Apply', { diff: layer, mounts });
    return toDescriptor(res.applied) as Descriptor;
  }

  /** Writes the changes from `lower` to `upper` as a new layer blob in the content store. */
  async diff(lower: Mount[], upper: Mount[], opts: DiffOptions = {}): Promise<Descriptor> {
    const res = await this.rpc.unary<{ diff: Descriptor }>(service, 'Diff', {
      left: lower,
      right: upper,
      mediaType: opts.mediaType ?? '',
      ref: opts.ref ?? '',
      labels: opts.labels ?? {},
    });
    return toDescriptor(res.diff) as Descriptor;
  }
}

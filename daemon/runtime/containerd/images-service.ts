// containerd's image records: a name pointing at a manifest (or index) descriptor.
import type { Rpc } from './rpc';
import { toDate, toDescriptor, type Descriptor, type Labels, type WireTimestamp } from './types';

export interface Image {
  name: string;
  labels: Labels;
  target: Descriptor;
  createdAt: Date | undefined;
  updatedAt: Date | undefined;
}

export interface NewImage {
  name: string;
  target: Descriptor;
  labels?: Labels;
}

interface WireImage {
  name: string;
  labels: Labels;
  target: Descriptor;
  createdAt: WireTimestamp | null;
  updatedAt: WireTimestamp | null;
}

function fromWire(i: WireImage): Image {
  return {
    name: i.name,
    labels: i.labels,
    target: toDescriptor(i.target) as Descriptor,
    createdAt: toDate(i.createdAt),
    updatedAt: toDate(i.updatedAt),
  };
}

const service = 'images.v1.Images';

export class ImagesService {
  constructor(private readonly rpc: Rpc) {}

  async create(image: NewImage): Promise<Image> {
    const res = await this.rpc.unary<{ image: WireImage }>(service, 'Create', {
      image: { name: image.name, target: image.target, labels: image.labels ?? {} },
    });
    return fromWire(res.image);
  }

  async get(name: string): Promise<Image> {
    const res = await this.rpc.unary<{ image: WireImage }>(service, 'Get', { name });
    return fromWire(res.image);
  }

  async list(filters: string[] = []): Promise<Image[]> {
    const res = await this.rpc.unary<{ images: WireImage[] }>(service, 'List', { filters });
    return res.images.map(fromWire);
  }

  /** Replaces the target and/or labels of an existing image (only the fields given). */
  async update(name: string, changes: { target?: Descriptor; labels?: Labels }): Promise<Image> {
    const paths = Object.keys(changes).filter((k) => k === 'target' || k === 'labels');
    const res = await this.rpc.unary<{ image: WireImage }>(service, 'Update', {
      image: { name, target: changes.target, labels: changes.labels ?? {} },
      updateMask: { paths },
    });
    return fromWire(res.image);
  }

  /** `sync` waits for the garbage collection the deletion triggers. */
  async delete(name: string, sync = false): Promise<void> {
    await this.rpc.unary(service, 'Delete', { name, sync });
  }
}

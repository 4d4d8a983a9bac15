// containerd namespaces: svcd keeps all its objects in one of them.
import { ConflictError } from '../../api/errors';
import type { Rpc } from './rpc';
import type { Labels } from './types';

export interface Namespace {
  name: string;
  labels: Labels;
}

const service = 'namespaces.v1.Namespaces';

export class NamespacesService {
  constructor(private readonly rpc: Rpc) {}

  async create(name: string, labels: Labels = {}): Promise<Namespace> {
    const res = await this.rpc.unary<{ namespace: Namespace }>(service, 'Create', {
      namespace: { name, labels },
    });
    return res.namespace;
  }

  async get(name: string): Promise<Namespace> {
    const res = await this.rpc.unary<{ namespace: Namespace }>(service, 'Get', { name });
    return res.namespace;
  }

  async list(): Promise<Namespace[]> {
    const res = await this.rpc.unary<{ namespaces: Namespace[] }>(service, 'List', {});
    return res.namespaces;
  }

  /** Creates the namespace unless it exists already. */
  async ensure(name: string, labels: Labels = {}): Promise<Namespace> {
    try {
      return await this.create(name, labels);
    } catch (err) {
      if (err instanceof ConflictError) return this.get(name);
      throw err;
    }
  }

  async delete(name: string): Promise<void> {
    await this.rpc.unary(service, 'Delete', { name });
  }
}

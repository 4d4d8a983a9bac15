// The containers svcd knows, by ID and by name, resolved the way Docker resolves a path
// segment: full ID, then name, then a unique ID prefix.
import { ConflictError, InvalidParameterError, NotFoundError } from '../../api/errors';
import type { Container } from './container';

export class ContainerRegistry {
  private readonly byId = new Map<string, Container>();
  private readonly byName = new Map<string, string>();

  add(container: Container): void {
    this.byId.set(container.id, container);
    this.byName.set(container.name, container.id);
  }

  remove(container: Container): void {
    this.byId.delete(container.id);
    if (this.byName.get(container.name) === container.id) this.byName.delete(container.name);
  }

  all(): Container[] {
    return [...this.byId.values()];
  }

  get size(): number {
    return this.byId.size;
  }

  /** Reserves `/name` for `id` (409 if taken by another container). */
  reserveName(name: string, id: string): void {
    const owner = this.byName.get(name);
    if (owner !== undefined && owner !== id) {
      throw new ConflictError(
        `Conflict. The container name "${name}" is already in use by container "${owner}". You have to remove (or rename) that container to be able to reuse that name.`,
      );
    }
    this.byName.set(name, id);
  }

  releaseName(name: string, id: string): void {
    if (this.byName.get(name) === id) this.byName.delete(name);
  }

  hasName(name: string): boolean {
    return this.byName.has(name);
  }

  find(ref: string): Container | undefined {
    if (ref === '') return undefined;
    const exact = this.byId.get(ref);
    if (exact) return exact;
    const named = this.byName.get(ref.startsWith('/') ? ref : `/${ref}`);
    if (named) return this.byId.get(named);
    if (!/^[0-9a-f]+$/.test(ref)) return undefined;
    let match: Container | undefined;
    for (const [id, container] of this.byId) {
      if (!id.startsWith(ref)) continue;
      if (match) throw new InvalidParameterError(`multiple IDs found with provided prefix: ${ref}`);
      match = container;
    }
    return match;
  }

  get(ref: string): Container {
    const container = this.find(ref);
    if (!container) throw new NotFoundError(`No such container: ${ref}`);
    return container;
  }
}

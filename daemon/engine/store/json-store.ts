// Per-object JSON documents, one directory per object, written atomically so that svcd can be
// killed at any moment and restart from what is on disk.
import { readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDir, writeFileAtomic } from '../../lib/atomic-file';

export class JsonStore<T> {
  constructor(
    private readonly dir: string,
    private readonly fileName = 'config.json',
  ) {}

  private pathOf(id: string, fileName = this.fileName): string {
    if (!/^[A-Za-z0-9_.-]+$/.test(id) || id === '.' || id === '..') throw new Error(`bad store id ${id}`);
    return join(this.dir, id, fileName);
  }

  /** Where a retired object's document lies (never a name `list` reads). */
  private retiredPathOf(id: string): string {
    return this.pathOf(id, `retired-${this.fileName}`);
  }

  /** The directory that holds an object's document and whatever else belongs to it. */
  objectDir(id: string): string {
    return join(this.dir, id);
  }

  async put(id: string, value: T): Promise<void> {
    await writeFileAtomic(this.pathOf(id), JSON.stringify(value));
  }

  async get(id: string): Promise<T | undefined> {
    return this.read(this.pathOf(id));
  }

  private async read(path: string): Promise<T | undefined> {
    try {
      return JSON.parse(await readFile(path, 'utf8')) as T;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Every object that has a complete document; directories without one are half-created leftovers. */
  async list(): Promise<Array<{ id: string; value: T }>> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: Array<{ id: string; value: T }> = [];
    for (const id of names) {
      if (id.startsWith('.')) continue;
      const value = await this.get(id);
      if (value !== undefined) out.push({ id, value });
    }
    return out;
  }

  /**
   * Takes the object out of the store in one durable step (a rename and its directory's fsync),
   * its directory left for the caller to clear: `list` no longer shows it, `retired` still reads
   * it, so what it names can be taken apart after a crash too.
   */
  async retire(id: string): Promise<void> {
    await rename(this.pathOf(id), this.retiredPathOf(id));
    await syncDir(this.objectDir(id));
  }

  /** The document of a retired object whose directory is still there. */
  retired(id: string): Promise<T | undefined> {
    return this.read(this.retiredPathOf(id));
  }

  async delete(id: string): Promise<void> {
    await rm(this.objectDir(id), { recursive: true, force: true });
  }
}

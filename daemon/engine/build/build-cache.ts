// The build cache: a step's key (its parent image, its instruction with resolved arguments, the
// config it leaves and, for COPY and ADD, the content hash of what it copies) to the image it
// made. One small file per key under the data root, written atomically, so the cache survives
// restarts and a crash leaves no half-written entry.
import { createHash } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../lib/atomic-file';

export interface StepKey {
  parent: string | undefined;
  createdBy: string;
  /** Whatever else decides the result: the config after the step, the owner of copied files. */
  detail: unknown;
}

export class BuildCache {
  constructor(private readonly dir: string) {}

  static keyOf(step: StepKey): string {
    return createHash('sha256')
      .update(JSON.stringify([step.parent ?? 'scratch', step.createdBy, step.detail]))
      .digest('hex');
  }

  async get(key: string): Promise<string | undefined> {
    const id = await readFile(join(this.dir, key), 'utf8').catch(() => undefined);
    return id?.trim() || undefined;
  }

  async set(key: string, imageId: string): Promise<void> {
    await writeFileAtomic(join(this.dir, key), imageId);
  }

  /** Forgets every entry; answers the image IDs they named. */
  async clear(): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const ids = new Set<string>();
    for (const name of names) {
      const id = await this.get(name);
      if (id) ids.add(id);
      await rm(join(this.dir, name), { force: true });
    }
    return [...ids];
  }
}

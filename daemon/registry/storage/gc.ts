// Garbage collection: mark every blob a manifest of any repository references, sweep the rest.
// Safe beside a running registry: a push uploads blobs before the manifest that references
// them, so blobs written (or re-used) within the grace period are never swept, and a manifest
// PUT checks its blobs exist at that moment.
import type { Digest } from '../../lib/digest';
import { parseManifest } from './manifest-parser';
import { paths } from './paths';
import type { RegistryStorage } from './registry-storage';

export interface GcOptions {
  dryRun: boolean;
  /** Blobs modified more recently than this are kept even when unreferenced. */
  gracePeriodMs: number;
  now?: number;
  log?: (line: string) => void;
}

export interface GcResult {
  marked: number;
  deleted: Digest[];
  freedBytes: number;
}

export const defaultGracePeriodMs = 60 * 60 * 1000;

async function mark(storage: RegistryStorage, log: (line: string) => void): Promise<Set<Digest>> {
  const marked = new Set<Digest>();
  for (const name of await storage.repositories()) {
    for (const algorithm of ['sha256', 'sha512']) {
      const revisions = await storage.revisions.listUnder(paths.revisionsDir(name, algorithm), algorithm);
      for (const digest of revisions) {
        if (!(await storage.revisions.isLinked(name, digest))) continue;
        const body = await storage.blobs.get(digest);
        if (!body) continue;
        marked.add(digest);
        try {
          const parsed = parseManifest(body);
          for (const d of [...parsed.blobs.map((b) => b.digest), ...parsed.manifests]) marked.add(d);
        } catch {
          log(`${name}@${digest}: unreadable manifest, its blobs are not marked`);
        }
      }
    }
  }
  return marked;
}

export async function collectGarbage(storage: RegistryStorage, options: GcOptions): Promise<GcResult> {
  const log = options.log ?? (() => undefined);
  const now = options.now ?? Date.now();
  const marked = await mark(storage, log);
  const deleted: Digest[] = [];
  let freedBytes = 0;
  for await (const digest of storage.blobs.all()) {
    if (marked.has(digest)) continue;
    const info = await storage.blobs.stat(digest);
    if (!info || now - info.modifiedMs < options.gracePeriodMs) continue;
    log(`${options.dryRun ? 'would delete' : 'deleting'} blob ${digest} (${info.size} bytes)`);
    if (!options.dryRun) await storage.blobs.delete(digest);
    deleted.push(digest);
    freedBytes += info.size;
  }
  return { marked: marked.size, deleted, freedBytes };
}

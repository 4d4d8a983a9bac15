// Manifests of a repository: stored as blobs, linked as revisions, named by tags. A PUT is
// accepted only when every blob and child manifest it references already exists here.
import { isDigest, type Digest } from '../../lib/digest';
import { errorEntry, RegistryError, type ErrorEntry } from '../api/error-codes';
import type { BlobStore } from './blob-store';
import type { StorageDriver } from './driver';
import { LinkedBlobStore } from './linked-blob-store';
import { paths } from './paths';
import { parseManifest, type ParsedManifest } from './manifest-parser';
import type { TagStore } from './tag-store';

export interface StoredManifest {
  body: Buffer;
  parsed: ParsedManifest;
}

const cacheLimit = 512;

export class ManifestStore {
  // Manifests are immutable per digest, so parsed bodies can be kept without invalidation.
  private readonly cache = new Map<Digest, StoredManifest>();

  constructor(
    private readonly driver: StorageDriver,
    private readonly blobs: BlobStore,
    private readonly layers: LinkedBlobStore,
    private readonly revisions: LinkedBlobStore,
    private readonly tags: TagStore,
  ) {}

  async put(name: string, reference: string, body: Buffer, contentType?: string): Promise<ParsedManifest> {
    const parsed = parseManifest(body, contentType);
    const byDigest = isDigest(reference);
    if (byDigest && reference !== parsed.digest) {
      throw new RegistryError('DIGEST_INVALID', undefined, { digest: reference, actual: parsed.digest });
    }
    if (parsed.kind === 'schema1') {
      if (parsed.name !== name)
        throw new RegistryError('NAME_INVALID', 'manifest name did not match URI', { name });
      if (!byDigest && parsed.tag !== reference)
        throw new RegistryError('TAG_INVALID', undefined, { tag: reference });
    }
    await this.checkReferences(name, parsed);
    await this.blobs.put(parsed.digest, body);
    await this.revisions.link(name, parsed.digest);
    if (parsed.subject) await this.referrerLinks(parsed.subject).link(name, parsed.digest);
    if (!byDigest) await this.tags.tag(name, reference, parsed.digest);
    this.remember({ body, parsed });
    return parsed;
  }

  /** The digest a reference names in this repository, or undefined. */
  async resolve(name: string, reference: string): Promise<Digest | undefined> {
    const digest = isDigest(reference) ? reference : await this.tags.resolve(name, reference);
    if (!digest || !(await this.revisions.isLinked(name, digest))) return undefined;
    return digest;
  }

  async get(name: string, reference: string): Promise<StoredManifest | undefined> {
    const digest = await this.resolve(name, reference);
    if (!digest) return undefined;
    const cached = this.cache.get(digest);
    if (cached) return cached;
    const body = await this.blobs.get(digest);
    if (!body) return undefined;
    const stored = { body, parsed: { ...parseManifest(body), digest } };
    this.remember(stored);
    return stored;
  }

  /** Links of the manifests whose subject is `subject`, in one repository. */
  private referrerLinks(subject: Digest): LinkedBlobStore {
    return new LinkedBlobStore(this.driver, this.blobs, (name, digest) =>
      paths.referrerLink(name, subject, digest),
    );
  }

  /** The manifests of a repository whose subject is `subject` (present or not). */
  async referrers(name: string, subject: Digest): Promise<StoredManifest[]> {
    const links = this.referrerLinks(subject);
    const out: StoredManifest[] = [];
    for (const algorithm of ['sha256', 'sha512']) {
      for (const digest of await links.listUnder(paths.referrersDir(name, subject, algorithm), algorithm)) {
        if (!(await links.isLinked(name, digest))) continue;
        const stored = await this.get(name, digest);
        if (stored) out.push(stored);
      }
    }
    return out;
  }

  /** Unlinks a manifest revision and drops the tags that pointed at it. */
  async delete(name: string, digest: Digest): Promise<boolean> {
    const subject = (await this.get(name, digest))?.parsed.subject;
    if (!(await this.revisions.unlink(name, digest))) return false;
    if (subject) await this.referrerLinks(subject).unlink(name, digest);
    await this.tags.untagDigest(name, digest);
    return true;
  }

  private async checkReferences(name: string, parsed: ParsedManifest): Promise<void> {
    const problems: ErrorEntry[] = [];
    const seen = new Set<Digest>();
    for (const { digest, size } of parsed.blobs) {
      if (seen.has(digest)) continue;
      seen.add(digest);
      const info = await this.layers.stat(name, digest);
      if (!info) problems.push(errorEntry('BLOB_UNKNOWN', { digest }));
      else if (size !== undefined && size !== info.size) {
        problems.push(errorEntry('SIZE_INVALID', { digest, size, actual: info.size }));
      }
    }
    for (const digest of new Set(parsed.manifests)) {
      if (!(await this.revisions.stat(name, digest)))
        problems.push(errorEntry('MANIFEST_BLOB_UNKNOWN', { digest }));
    }
    if (problems.length) throw RegistryError.many(problems, 400);
  }

  private remember(stored: StoredManifest): void {
    if (this.cache.size >= cacheLimit) this.cache.delete(this.cache.keys().next().value as Digest);
    this.cache.set(stored.parsed.digest, stored);
  }
}

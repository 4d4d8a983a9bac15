// A repository's view onto the shared blob store: a blob belongs to a repository when the
// repository holds a link to it. Layers and manifest revisions are two such views.
import { isDigest, type Digest } from '../../lib/digest';
import type { BlobInfo, BlobStore } from './blob-store';
import type { RandomReader, StorageDriver } from './driver';

export type LinkPath = (name: string, digest: Digest) => string;

export class LinkedBlobStore {
  constructor(
    private readonly driver: StorageDriver,
    private readonly blobs: BlobStore,
    private readonly linkPath: LinkPath,
  ) {}

  async isLinked(name: string, digest: Digest): Promise<boolean> {
    const link = await this.driver.getContent(this.linkPath(name, digest));
    return link !== undefined && link.toString() === digest;
  }

  // The link and the blob are looked up at once: on an object store each is a round trip, and a
  // pull waits for both before its first byte.

  /** The blob when the repository links it and its content exists. */
  async stat(name: string, digest: Digest): Promise<BlobInfo | undefined> {
    const [linked, info] = await Promise.all([this.isLinked(name, digest), this.blobs.stat(digest)]);
    return linked ? info : undefined;
  }

  /** The blob opened for reading when the repository links it and its content exists. */
  async open(name: string, digest: Digest): Promise<RandomReader | undefined> {
    const [linked, file] = await Promise.allSettled([this.isLinked(name, digest), this.blobs.open(digest)]);
    if (linked.status === 'fulfilled' && linked.value && file.status === 'fulfilled') return file.value;
    if (file.status === 'fulfilled') await file.value?.close();
    if (linked.status === 'rejected') throw linked.reason;
    if (file.status === 'rejected') throw file.reason;
    return undefined;
  }

  async link(name: string, digest: Digest): Promise<void> {
    // Not fsynced: a link cut short by a power cut reads as no link, and the client pushes again.
    await this.driver.putContent(this.linkPath(name, digest), digest, { durable: false });
  }

  /** Removes the link; false when there was none. */
  async unlink(name: string, digest: Digest): Promise<boolean> {
    if (!(await this.isLinked(name, digest))) return false;
    const path = this.linkPath(name, digest);
    await this.driver.delete(path.slice(0, path.lastIndexOf('/')));
    return true;
  }

  /** Digests linked under a directory laid out as <dir>/<hex>/link. */
  async listUnder(dir: string, algorithm: string): Promise<Digest[]> {
    const out: Digest[] = [];
    for (const hex of await this.driver.list(dir)) {
      const digest = `${algorithm}:${hex}`;
      if (isDigest(digest)) out.push(digest);
    }
    return out;
  }
}

// Content-addressed blobs shared by every repository. A blob appears only by an atomic rename of
// fully written, verified content, so a reader never sees a partial one.
import { isDigest, type Digest } from '../../lib/digest';
import type { RandomReader, StorageDriver } from './driver';
import { paths } from './paths';

export interface BlobInfo {
  digest: Digest;
  size: number;
  modifiedMs: number;
}

export class BlobStore {
  constructor(readonly driver: StorageDriver) {}

  async stat(digest: Digest): Promise<BlobInfo | undefined> {
    const info = await this.driver.stat(paths.blobData(digest));
    return info && !info.isDirectory ? { digest, size: info.size, modifiedMs: info.modifiedMs } : undefined;
  }

  open(digest: Digest): Promise<RandomReader | undefined> {
    return this.driver.open(paths.blobData(digest));
  }

  /** Whether blobs can be fetched from the store itself (the driver gives redirect URLs). */
  redirects(): boolean {
    return this.driver.redirectUrl !== undefined;
  }

  /** Where clients can fetch the blob from the store itself, when the driver can say. */
  redirectUrl(digest: Digest): Promise<string> | undefined {
    // Twenty minutes, as Distribution's S3 driver signs them.
    return this.driver.redirectUrl?.(paths.blobData(digest), 20 * 60);
  }

  async get(digest: Digest): Promise<Buffer | undefined> {
    return this.driver.getContent(paths.blobData(digest));
  }

  /** Moves verified content (a finished upload file) into place under its digest. */
  async ingest(fromPath: string, digest: Digest): Promise<void> {
    if (await this.stat(digest)) {
      await this.driver.delete(fromPath);
      await this.touch(digest);
      return;
    }
    await this.driver.move(fromPath, paths.blobData(digest));
  }

  /** Stores small verified content (a manifest) under its digest. */
  async put(digest: Digest, content: Uint8Array): Promise<void> {
    if (await this.stat(digest)) {
      await this.touch(digest);
      return;
    }
    await this.driver.putContent(paths.blobData(digest), content);
  }

  /** Marks a blob as just used, so gc's grace period protects it during a push. */
  async touch(digest: Digest): Promise<void> {
    await this.driver.touch(paths.blobData(digest));
  }

  async delete(digest: Digest): Promise<void> {
    await this.driver.delete(paths.blobDir(digest));
  }

  /** Every stored blob, for garbage collection. */
  async *all(): AsyncGenerator<Digest> {
    for (const algorithm of await this.driver.list(paths.blobsRoot())) {
      for (const prefix of await this.driver.list(paths.blobAlgorithmDir(algorithm))) {
        for (const hex of await this.driver.list(`${paths.blobAlgorithmDir(algorithm)}/${prefix}`)) {
          const digest = `${algorithm}:${hex}`;
          if (isDigest(digest)) yield digest;
        }
      }
    }
  }
}

// The storage layers wired together over one driver: what handlers and gc work with.
import type { StorageDriver } from './driver';
import { BlobStore } from './blob-store';
import { LinkedBlobStore } from './linked-blob-store';
import { ManifestStore } from './manifest-store';
import { paths, repositoryEntries, reservedEntries } from './paths';
import { TagStore } from './tag-store';
import { UploadWriter, type UploadWriterOptions } from './upload-writer';

export class RegistryStorage {
  readonly blobs: BlobStore;
  readonly layers: LinkedBlobStore;
  readonly revisions: LinkedBlobStore;
  readonly tags: TagStore;
  readonly manifests: ManifestStore;
  readonly uploads: UploadWriter;

  constructor(
    readonly driver: StorageDriver,
    options: UploadWriterOptions,
  ) {
    this.blobs = new BlobStore(driver);
    this.layers = new LinkedBlobStore(driver, this.blobs, paths.layerLink);
    this.revisions = new LinkedBlobStore(driver, this.blobs, paths.revisionLink);
    this.tags = new TagStore(driver);
    this.manifests = new ManifestStore(driver, this.blobs, this.layers, this.revisions, this.tags);
    this.uploads = new UploadWriter(driver, this.blobs, this.layers, options);
  }

  /** Every repository name, in lexical order (a directory holding _layers or _manifests). */
  async repositories(): Promise<string[]> {
    const names = await this.repositoryDirs(
      (entries) =>
        entries.includes(repositoryEntries.layers) || entries.includes(repositoryEntries.manifests),
    );
    return names.sort();
  }

  /** Names whose directory matches `holds`, found by walking the repositories tree. */
  private async repositoryDirs(holds: (entries: string[]) => boolean): Promise<string[]> {
    const names: string[] = [];
    const walk = async (prefix: string): Promise<void> => {
      const dir = prefix ? paths.repository(prefix) : paths.repositoriesRoot();
      const entries = await this.driver.list(dir);
      if (prefix && holds(entries)) names.push(prefix);
      for (const entry of entries) {
        if (reservedEntries.has(entry) || entry.includes('.tmp-')) continue;
        const child = prefix ? `${prefix}/${entry}` : entry;
        if ((await this.driver.stat(paths.repository(child)))?.isDirectory) await walk(child);
      }
    };
    await walk('');
    return names;
  }

  /** Purges expired uploads of every repository, and blobs staged by requests that died. */
  async purgeExpiredUploads(now = Date.now()): Promise<number> {
    let purged = await this.uploads.purgeStaged(now);
    for (const name of await this.repositoryDirs((e) => e.includes(repositoryEntries.uploads)))
      purged += await this.uploads.purgeExpired(name, now);
    return purged;
  }
}

// Tags of a repository: each a link file naming the manifest digest it currently points at.
import { isDigest, type Digest } from '../../lib/digest';
import type { StorageDriver } from './driver';
import { paths } from './paths';

export class TagStore {
  constructor(private readonly driver: StorageDriver) {}

  async resolve(name: string, tag: string): Promise<Digest | undefined> {
    const link = (await this.driver.getContent(paths.tagLink(name, tag)))?.toString();
    return link && isDigest(link) ? link : undefined;
  }

  async tag(name: string, tag: string, digest: Digest): Promise<void> {
    // Not fsynced: a tag cut short by a power cut reads as absent (resolve checks the digest).
    await this.driver.putContent(paths.tagLink(name, tag), digest, { durable: false });
  }

  async untag(name: string, tag: string): Promise<void> {
    await this.driver.delete(paths.tag(name, tag));
  }

  /** Tags in lexical order; undefined when the repository has no tag directory. */
  async list(name: string): Promise<string[] | undefined> {
    if (!(await this.driver.stat(paths.tagsDir(name)))) return undefined;
    const tags: string[] = [];
    for (const tag of await this.driver.list(paths.tagsDir(name))) {
      if (await this.resolve(name, tag)) tags.push(tag);
    }
    return tags.sort();
  }

  /** Removes every tag pointing at a digest (its manifest was deleted). */
  async untagDigest(name: string, digest: Digest): Promise<string[]> {
    const removed: string[] = [];
    for (const tag of (await this.list(name)) ?? []) {
      if ((await this.resolve(name, tag)) === digest) {
        await this.untag(name, tag);
        removed.push(tag);
      }
    }
    return removed;
  }
}

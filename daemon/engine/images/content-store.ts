// containerd's content store seen as the BlobSink and BlobSource that pull, push, save and load
// work over. Writes go through the client it is given: a leased one keeps new blobs from garbage
// collection until an image record references them.
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { NotFoundError } from '../../api/errors';
import type { ContainerdClient } from '../../runtime/containerd/client';
import type { Labels } from '../../runtime/containerd/types';
import type { BlobSink, BlobSource } from './distribution/types';
import type { Descriptor } from '../../api/manifest-types';
import { DigestMismatchError } from '../../lib/registry-wire/verifying-stream';

/** containerd's label naming the repositories of a registry a blob is known to live in. */
export const distributionSourceLabel = (host: string) => `containerd.io/distribution.source.${host}`;

export class ContentStore implements BlobSink, BlobSource {
  /** containerd checks a write's digest and size as it commits it. */
  readonly verifiesDigest = true;

  constructor(private readonly client: ContainerdClient) {}

  async has(digest: string): Promise<boolean> {
    try {
      await this.client.content.info(digest);
      return true;
    } catch (err) {
      if (err instanceof NotFoundError) return false;
      throw err;
    }
  }

  async write(desc: Descriptor, stream: Readable, signal?: AbortSignal): Promise<void> {
    try {
      // A ref of its own per write: two pulls of one blob both download it, and the second
      // commit finds it there (containerd answers AlreadyExists), instead of failing on a lock.
      await this.client.content.write(`svc-${desc.digest}-${randomBytes(4).toString('hex')}`, stream, {
        expected: desc.digest,
        size: desc.size,
        signal,
      });
    } catch (err) {
      throw digestMismatch(err) ?? err;
    }
  }

  async open(desc: Descriptor): Promise<Readable> {
    // Fails early (404) instead of in the middle of a stream.
    await this.client.content.info(desc.digest);
    return this.client.content.read(desc.digest);
  }

  readAll(digest: string): Promise<Buffer> {
    return this.client.content.readAll(digest);
  }

  async labels(digest: string): Promise<Labels> {
    return (await this.client.content.info(digest)).labels;
  }

  /** Adds (or, with undefined, removes) labels, keeping the others. */
  async mergeLabels(digest: string, changes: Record<string, string | undefined>): Promise<void> {
    const labels = { ...(await this.labels(digest)) };
    let changed = false;
    for (const [key, value] of Object.entries(changes)) {
      if (labels[key] === value) continue;
      changed = true;
      if (value === undefined) delete labels[key];
      else labels[key] = value;
    }
    if (changed) await this.client.content.setLabels(digest, labels);
  }

  /** Records that the blob lives in `repository` on `host` (a cross-repository mount source). */
  async addSource(digest: string, host: string, repository: string): Promise<void> {
    const key = distributionSourceLabel(host);
    const current = (await this.labels(digest))[key];
    const repos = new Set(current ? current.split(',') : []);
    if (repos.has(repository)) return;
    repos.add(repository);
    await this.mergeLabels(digest, { [key]: [...repos].join(',') });
  }

  async sources(digest: string, host: string): Promise<string[]> {
    const value = (await this.labels(digest).catch(() => ({}) as Labels))[distributionSourceLabel(host)];
    return value ? value.split(',') : [];
  }
}

/** containerd's refusal to commit content whose digest is not the expected one, in our words. */
function digestMismatch(err: unknown): DigestMismatchError | undefined {
  const found = /unexpected commit digest (\w+:[0-9a-f]+), expected (\w+:[0-9a-f]+)/.exec(
    err instanceof Error ? err.message : '',
  );
  return found ? new DigestMismatchError(found[2], found[1]) : undefined;
}

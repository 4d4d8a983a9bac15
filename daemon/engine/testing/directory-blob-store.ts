// A BlobSink and BlobSource on a plain directory (`blobs/<alg>/<hex>`), for tests: it commits a
// blob by rename only after the stream ended cleanly and its digest matched, as a content store does.
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { NotFoundError } from '../../api/errors';
import type { BlobSink, BlobSource } from '../images/distribution/types';
import type { Descriptor } from '../../api/manifest-types';
import { VerifyingStream } from '../../lib/registry-wire/verifying-stream';

export class DirectoryBlobStore implements BlobSink, BlobSource {
  /** Every descriptor written, in order (what a content store would label). */
  readonly written: Descriptor[] = [];

  constructor(readonly root: string) {}

  blobPath(digest: string): string {
    const [algorithm, hex] = digest.split(':');
    return path.join(this.root, 'blobs', algorithm, hex);
  }

  async has(digest: string): Promise<boolean> {
    return stat(this.blobPath(digest)).then(
      () => true,
      () => false,
    );
  }

  async write(desc: Descriptor, stream: Readable, signal?: AbortSignal): Promise<void> {
    const ingest = path.join(this.root, 'ingest');
    await mkdir(ingest, { recursive: true });
    const temp = path.join(ingest, randomUUID());
    // Created before any data flows: a stream that opened the file itself could create it after
    // a failed write had already removed it.
    const file = await open(temp, 'w');
    try {
      const verifier = new VerifyingStream({
        digest: desc.digest,
        size: desc.size >= 0 ? desc.size : undefined,
      });
      await pipeline(stream, verifier, file.createWriteStream(), { signal });
      const target = this.blobPath(desc.digest);
      await mkdir(path.dirname(target), { recursive: true });
      await rename(temp, target);
      this.written.push(desc);
    } finally {
      await file.close().catch(() => {});
      await rm(temp, { force: true });
    }
  }

  async open(desc: Descriptor): Promise<Readable> {
    const file = this.blobPath(desc.digest);
    if (!(await this.has(desc.digest))) throw new NotFoundError(`blob ${desc.digest} not found`);
    return createReadStream(file);
  }

  /** Every committed blob digest, and anything left in the ingest area. */
  async contents(): Promise<{ blobs: string[]; ingest: string[] }> {
    const list = (dir: string) => readdir(dir).catch(() => [] as string[]);
    const blobs: string[] = [];
    for (const algorithm of await list(path.join(this.root, 'blobs'))) {
      for (const hex of await list(path.join(this.root, 'blobs', algorithm)))
        blobs.push(`${algorithm}:${hex}`);
    }
    return { blobs, ingest: await list(path.join(this.root, 'ingest')) };
  }
}

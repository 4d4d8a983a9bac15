// Blob uploads as a start → patch* → commit state machine. Bytes are hashed while they stream
// to the upload file; commit compares the digest(s) the client named with what arrived and only
// then renames the file into the blob store. The upload file's size is the accepted offset, so
// after a crash an upload resumes from what reached the disk (the hash is rebuilt from it).
import { createHash, randomUUID, type Hash } from 'node:crypto';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { digestAlgorithm, digestHex, isDigest, type Digest } from '../../lib/digest';
import { KeyedLock } from '../../lib/keyed-lock';
import { RegistryError } from '../api/error-codes';
import type { BlobStore } from './blob-store';
import type { StorageDriver } from './driver';
import type { LinkedBlobStore } from './linked-blob-store';
import { paths } from './paths';

export interface ByteRange {
  start: number;
  end: number;
}

/** Thrown for an out-of-order or invalid chunk: answered 416 with the accepted range. */
export class RangeInvalidError extends RegistryError {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super('RANGE_INVALID', message);
  }
}

interface Session {
  hash: Hash;
  offset: number;
}

export interface UploadWriterOptions {
  /** Uploads not completed within this time are unknown and their data purged. */
  expireMs: number;
}

export class UploadWriter {
  private readonly sessions = new Map<string, Session>();
  private readonly lock = new KeyedLock();

  constructor(
    private readonly driver: StorageDriver,
    private readonly blobs: BlobStore,
    private readonly layers: LinkedBlobStore,
    private readonly options: UploadWriterOptions,
  ) {}

  async start(name: string): Promise<string> {
    const uuid = randomUUID();
    // Scratch state: an upload lost to a power cut is unknown, and the client starts it again.
    try {
      await this.driver.putContent(paths.uploadStartedAt(name, uuid), new Date().toISOString(), {
        durable: false,
      });
      await this.driver.putContent(paths.uploadData(name, uuid), '', { durable: false });
    } catch (err) {
      // A full disk: leave nothing of an upload the client never heard of.
      await this.driver.delete(paths.upload(name, uuid));
      throw err;
    }
    this.sessions.set(uuid, { hash: createHash('sha256'), offset: 0 });
    return uuid;
  }

  /** The number of bytes accepted so far; BLOB_UPLOAD_UNKNOWN when unknown or expired. */
  async offset(name: string, uuid: string): Promise<number> {
    await this.checkAlive(name, uuid);
    const data = await this.driver.stat(paths.uploadData(name, uuid));
    if (data) return data.size;
    const moved = await this.movedBlob(name, uuid);
    if (!moved) throw unknownUpload(uuid);
    return moved.size;
  }

  /**
   * The blob of an upload whose commit was cut (a kill) after its data moved into the blob store
   * and before it was linked: the upload then has a `committed` note and no data. Its status
   * answers the whole size and a retried PUT finishes the commit, so the upload is not lost.
   */
  private async movedBlob(name: string, uuid: string): Promise<{ digest: Digest; size: number } | undefined> {
    const note = (await this.driver.getContent(paths.uploadCommitted(name, uuid)))?.toString();
    if (!note || !isDigest(note) || (await this.driver.stat(paths.uploadData(name, uuid)))) return undefined;
    const blob = await this.blobs.stat(note);
    return blob && { digest: note, size: blob.size };
  }

  /** Appends a chunk; `range` (from Content-Range) must start right after the accepted bytes. */
  patch(name: string, uuid: string, body: Readable, range?: ByteRange): Promise<number> {
    return this.locked(uuid, () => this.append(name, uuid, body, range));
  }

  /**
   * Appends an optional final chunk, verifies every digest the client named and moves the
   * content into the blob store, linked into the repository. Returns the canonical digest.
   */
  commit(name: string, uuid: string, digests: Digest[], body?: Readable, range?: ByteRange): Promise<Digest> {
    return this.locked(uuid, async () => {
      const moved = await this.movedBlob(name, uuid);
      if (moved) {
        for (const digest of digests)
          if (digestAlgorithm(digest) === 'sha256' && digest !== moved.digest)
            throw new RegistryError('DIGEST_INVALID', undefined, { digest, actual: moved.digest });
        await this.layers.link(name, moved.digest);
        await this.driver.delete(paths.upload(name, uuid));
        return moved.digest;
      }
      const direct = await this.directTarget(name, uuid, digests, body, range);
      if (direct) return this.commitDirect(name, uuid, direct, body!);
      const size = await this.append(name, uuid, body, range);
      const session = await this.session(name, uuid, size);
      const canonical = `sha256:${session.hash.digest('hex')}` as Digest;
      this.sessions.delete(uuid);
      for (const digest of digests) {
        const actual =
          digestAlgorithm(digest) === 'sha256'
            ? canonical
            : await this.hashFile(paths.uploadData(name, uuid), 'sha512');
        if (digestHex(actual) !== digestHex(digest)) {
          await this.cancel(name, uuid);
          throw new RegistryError('DIGEST_INVALID', undefined, { digest, actual });
        }
      }
      // Noted first, so a kill between the move and the link leaves an upload that can finish.
      await this.driver.putContent(paths.uploadCommitted(name, uuid), canonical, { durable: false });
      await this.blobs.ingest(paths.uploadData(name, uuid), canonical);
      await this.layers.link(name, canonical);
      await this.driver.delete(paths.upload(name, uuid));
      return canonical;
    });
  }

  /**
   * The digest a whole blob in one request may be written under straight away, when the store
   * stages files (its move would copy every byte): the upload is fresh, the client named only
   * sha256 digests, all one, and that blob is not stored yet.
   */
  private async directTarget(
    name: string,
    uuid: string,
    digests: Digest[],
    body: Readable | undefined,
    range: ByteRange | undefined,
  ): Promise<Digest | undefined> {
    const [digest] = digests;
    if (!this.driver.stagedWriter || !body || !digest || (range && range.start !== 0)) return undefined;
    if (digests.some((d) => d !== digest || digestAlgorithm(d) !== 'sha256')) return undefined;
    if ((await this.offset(name, uuid)) !== 0 || (await this.blobs.stat(digest))) return undefined;
    return digest;
  }

  /**
   * Streams the body to the blob's own path, staged; verified, it is committed there. The commit
   * note first, as for a move: a kill after the commit leaves an upload that can finish.
   */
  private async commitDirect(name: string, uuid: string, digest: Digest, body: Readable): Promise<Digest> {
    const staged = await this.driver.stagedWriter!(paths.blobData(digest));
    const hash = createHash('sha256');
    try {
      await writeBody(body, staged.stream, (chunk) => hash.update(chunk));
    } catch (err) {
      await staged.abort().catch(() => undefined);
      throw err;
    }
    this.sessions.delete(uuid);
    const actual = `sha256:${hash.digest('hex')}` as Digest;
    if (actual !== digest) {
      await staged.abort();
      await this.cancel(name, uuid);
      throw new RegistryError('DIGEST_INVALID', undefined, { digest, actual });
    }
    await this.driver.putContent(paths.uploadCommitted(name, uuid), digest, { durable: false });
    await staged.commit().catch(async (err: unknown) => {
      await staged.abort().catch(() => undefined);
      throw err;
    });
    await this.driver.delete(paths.uploadData(name, uuid));
    await this.layers.link(name, digest);
    await this.driver.delete(paths.upload(name, uuid));
    return digest;
  }

  async cancel(name: string, uuid: string): Promise<void> {
    this.sessions.delete(uuid);
    await this.driver.delete(paths.upload(name, uuid));
  }

  /** Drops the store's staged blobs whose request died, once they are older than the expiry. */
  async purgeStaged(now = Date.now()): Promise<number> {
    return (await this.driver.purgeStaged?.(now - this.options.expireMs)) ?? 0;
  }

  /** Removes every upload of a repository started longer ago than the expiry. */
  async purgeExpired(name: string, now = Date.now()): Promise<number> {
    let purged = 0;
    for (const uuid of await this.driver.list(paths.uploadsDir(name))) {
      if (await this.isExpired(name, uuid, now)) {
        await this.cancel(name, uuid);
        purged++;
      }
    }
    return purged;
  }

  private async isExpired(name: string, uuid: string, now: number): Promise<boolean> {
    const started = await this.driver.getContent(paths.uploadStartedAt(name, uuid));
    if (!started) return true;
    const at = Date.parse(started.toString());
    return Number.isNaN(at) || now - at > this.options.expireMs;
  }

  private async checkAlive(name: string, uuid: string): Promise<void> {
    if (!(await this.driver.stat(paths.upload(name, uuid)))) throw unknownUpload(uuid);
    if (await this.isExpired(name, uuid, Date.now())) {
      await this.cancel(name, uuid);
      throw unknownUpload(uuid);
    }
  }

  private async append(
    name: string,
    uuid: string,
    body: Readable | undefined,
    range?: ByteRange,
  ): Promise<number> {
    const offset = await this.offset(name, uuid);
    if (range && (range.start !== offset || range.end < range.start)) {
      throw new RangeInvalidError(
        offset,
        `chunk ${range.start}-${range.end} does not follow offset ${offset}`,
      );
    }
    if (!body) return offset;
    const session = await this.session(name, uuid, offset);
    const out = await this.driver.appender(paths.uploadData(name, uuid));
    try {
      await writeBody(body, out, (chunk) => {
        session.hash.update(chunk);
        session.offset += chunk.length;
      });
    } catch (err) {
      // The bytes already written stay (the client resumes after them); the hash is rebuilt.
      this.sessions.delete(uuid);
      throw err;
    }
    return session.offset;
  }

  /** The running hash of the upload, rebuilt from disk when this process did not see it all. */
  private async session(name: string, uuid: string, offset: number): Promise<Session> {
    const known = this.sessions.get(uuid);
    if (known && known.offset === offset) return known;
    const hash = createHash('sha256');
    for await (const chunk of this.driver.reader(paths.uploadData(name, uuid)) as AsyncIterable<Buffer>) {
      hash.update(chunk);
    }
    const session = { hash, offset };
    this.sessions.set(uuid, session);
    return session;
  }

  private async hashFile(path: string, algorithm: 'sha256' | 'sha512'): Promise<Digest> {
    const hash = createHash(algorithm);
    for await (const chunk of this.driver.reader(path) as AsyncIterable<Buffer>) hash.update(chunk);
    return `${algorithm}:${hash.digest('hex')}` as Digest;
  }

  private locked<T>(uuid: string, fn: () => Promise<T>): Promise<T> {
    return this.lock.run(uuid, fn);
  }
}

/**
 * Writes a request body to `out`, each chunk seen by `onChunk` first, and closes it. After a
 * failed write (ENOSPC, EIO, the store refusing) the rest of the body is read and dropped: the
 * client gets the answer, not a reset connection.
 */
async function writeBody(body: Readable, out: Writable, onChunk: (chunk: Buffer) => void): Promise<void> {
  // Settles once the file is closed, rejected by a failed write.
  const written = finished(out);
  let failed = false;
  written.catch(() => (failed = true));
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      if (failed) continue;
      onChunk(chunk);
      if (!out.write(chunk)) await Promise.race([once(out, 'drain'), written]).catch(() => undefined);
    }
    if (!out.destroyed) out.end();
    await written;
  } catch (err) {
    if (!out.destroyed) out.end();
    await written.catch(() => undefined);
    throw err;
  }
}

export function unknownUpload(uuid: string): RegistryError {
  return new RegistryError('BLOB_UPLOAD_UNKNOWN', undefined, { uuid });
}

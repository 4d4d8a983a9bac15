// Blobs placed into the content store of a containerd on this machine without sending them
// through its Write API. containerd hashes what it is sent with Go's SHA-256, which on the Go it
// is built with runs at ~200 MB/s (no SHA-NI): for a pull that was half of containerd's CPU. Here
// svcd hashes (OpenSSL, ~1.5 GB/s) while it writes a staging file, checks digest and size, and
// hard-links the file into the store under its digest. containerd's metadata store then commits
// the blob without reading it: a writer opened for an expected digest whose file is already in
// the store (the default "shared" content policy) commits on the size and digest alone.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { link, mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { InvalidParameterError } from '../../api/errors';
import { DigestMismatchError } from '../../lib/registry-wire/verifying-stream';

/** Where containerd's content plugin keeps blobs, and a directory on the same file system. */
export interface LocalContentPaths {
  /** `<root>/io.containerd.content.v1.content` of the containerd. */
  store: string;
  /** svcd's staging directory: emptied when containerd starts, so a crash leaves nothing. */
  staging: string;
}

export const contentStoreDir = (containerdRoot: string) =>
  path.join(containerdRoot, 'io.containerd.content.v1.content');

/** A blob written to the staging directory, its digest and size checked. */
export interface StagedBlob {
  file: string;
  /** Whether the file is in containerd's store under its digest (a link, or one already there). */
  placed: boolean;
  /** Removes the staging file (the store keeps its own link). */
  release(): Promise<void>;
}

/**
 * Writes `source` to a staging file, verifying `expected` and `size` as it streams, and links it
 * into the store. Only sha256 digests (the store's only algorithm here) are staged.
 */
export async function stageBlob(
  paths: LocalContentPaths,
  source: AsyncIterable<Buffer | Uint8Array>,
  expected: string,
  size: number,
  signal?: AbortSignal,
): Promise<StagedBlob> {
  const hex = /^sha256:([0-9a-f]{64})$/.exec(expected)?.[1];
  if (!hex) throw new InvalidParameterError(`cannot stage a blob of digest ${expected}`);
  await mkdir(paths.staging, { recursive: true, mode: 0o700 });
  const file = path.join(paths.staging, `${hex}-${randomBytes(4).toString('hex')}`);
  const release = () => rm(file, { force: true });
  try {
    const fd = await open(file, 'wx', 0o444);
    const hash = createHash('sha256');
    let written = 0;
    try {
      for await (const chunk of source) {
        signal?.throwIfAborted();
        written += chunk.length;
        if (written > size) break;
        hash.update(chunk);
        for (let at = 0; at < chunk.length;) at += (await fd.write(chunk, at)).bytesWritten;
      }
      signal?.throwIfAborted();
      // As containerd's own commit: the blob is on disk before anything names it.
      await fd.sync();
    } finally {
      await fd.close();
    }
    if (written !== size) {
      throw new InvalidParameterError(
        `blob ${expected}: got ${written > size ? 'more than ' : ''}${written} bytes, expected ${size}`,
      );
    }
    const actual = `sha256:${hash.digest('hex')}`;
    if (actual !== expected) throw new DigestMismatchError(expected, actual);
    return { file, placed: await place(paths, file, hex), release };
  } catch (err) {
    await release();
    throw err;
  }
}

async function place(paths: LocalContentPaths, file: string, hex: string): Promise<boolean> {
  const dir = path.join(paths.store, 'blobs', 'sha256');
  try {
    await mkdir(dir, { recursive: true, mode: 0o755 });
    await link(file, path.join(dir, hex));
    return true;
  } catch (err) {
    // A file of that name holds that content: containerd's store names blobs by their digest.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return true;
    // Another file system (EXDEV) or a store we may not write: containerd is sent the bytes.
    return false;
  }
}

/** The staged file's bytes, for a store that did not take the link. */
export function readStaged(staged: StagedBlob): Readable {
  return createReadStream(staged.file, { highWaterMark: 512 * 1024 });
}

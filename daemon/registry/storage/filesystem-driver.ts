// The storage driver on a local directory. Small files are written to a temp name, fsynced and
// renamed; large ones are appended to upload files, fsynced and renamed into place by the blob
// store; after a rename its directory is fsynced too. So a power cut leaves a blob or manifest
// whole or absent, never a name pointing at missing or partial bytes.
// Reads, stats and renames use the synchronous fs API on purpose: they take microseconds on the
// page cache, while each trip through libuv's thread pool costs ~100 µs here and a manifest PUT
// makes a dozen of them. fsync waits for the disk, so it goes through the pool, as blob bytes do.
import {
  createReadStream,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { FileInfo, RandomReader, StorageDriver } from './driver';
import { FlushingAppender } from './flushing-appender';

// Streamed reads (hashing an upload being resumed) in 4 MiB pieces: fewer trips through the
// thread pool.
const readChunk = 4 << 20;
const writeBuffer = 1 << 20;
// How much of an upload waits in the page cache before its writing to the disk is started.
const flushEvery = 32 << 20;

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * fsyncs `dir`, where a rename just happened, and when mkdir made directories for it (`made` is
 * the first one) each directory up to the one that holds them, so their entries survive too.
 */
async function syncDirectories(dir: string, made: string | undefined): Promise<void> {
  const top = made ? dirname(made) : dir;
  for (let d = dir; ; d = dirname(d)) {
    await syncFile(d);
    if (d === top || d === dirname(d)) return;
  }
}

export class FilesystemDriver implements StorageDriver {
  constructor(readonly root: string) {}

  private full(path: string): string {
    return join(this.root, path);
  }

  async getContent(path: string): Promise<Buffer | undefined> {
    try {
      return readFileSync(this.full(path));
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async putContent(
    path: string,
    content: string | Uint8Array,
    options: { durable?: boolean } = {},
  ): Promise<void> {
    const durable = options.durable ?? true;
    const target = this.full(path);
    const temp = `${target}.tmp-${randomBytes(6).toString('hex')}`;
    const made = mkdirSync(dirname(target), { recursive: true });
    try {
      writeFileSync(temp, content);
      if (durable) await syncFile(temp);
    } catch (err) {
      // A write that did not fit (ENOSPC) leaves no partial file behind.
      rmSync(temp, { force: true });
      throw err;
    }
    renameSync(temp, target);
    if (durable) await syncDirectories(dirname(target), made);
  }

  async stat(path: string): Promise<FileInfo | undefined> {
    try {
      const s = statSync(this.full(path));
      return { size: s.size, modifiedMs: s.mtimeMs, isDirectory: s.isDirectory() };
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async list(path: string): Promise<string[]> {
    try {
      return readdirSync(this.full(path));
    } catch (err) {
      if (isMissing(err)) return [];
      throw err;
    }
  }

  reader(path: string, range?: { start: number; end: number }): Readable {
    return createReadStream(this.full(path), { highWaterMark: readChunk, ...range });
  }

  async open(path: string): Promise<RandomReader | undefined> {
    try {
      const handle = await open(this.full(path), 'r');
      const { size } = await handle.stat();
      return {
        size,
        fd: handle.fd,
        read: async (into, position) => (await handle.read(into, 0, into.length, position)).bytesRead,
        close: () => handle.close(),
      };
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async appender(path: string): Promise<Writable> {
    const target = this.full(path);
    await mkdir(dirname(target), { recursive: true });
    return new FlushingAppender(await open(target, 'a'), flushEvery, writeBuffer);
  }

  async move(from: string, to: string): Promise<void> {
    const target = this.full(to);
    await syncFile(this.full(from));
    const made = mkdirSync(dirname(target), { recursive: true });
    renameSync(this.full(from), target);
    await syncDirectories(dirname(target), made);
  }

  async delete(path: string): Promise<void> {
    await rm(this.full(path), { recursive: true, force: true });
  }

  async touch(path: string): Promise<void> {
    const now = new Date();
    try {
      utimesSync(this.full(path), now, now);
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
  }
}

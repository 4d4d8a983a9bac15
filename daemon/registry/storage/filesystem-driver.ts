// The storage driver on a local directory. Small files are written to a temp name and renamed;
// large ones are appended to upload files and renamed into place by the blob store.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { FileInfo, StorageDriver } from './driver';

const readChunk = 1 << 20;

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export class FilesystemDriver implements StorageDriver {
  constructor(readonly root: string) {}

  private full(path: string): string {
    return join(this.root, path);
  }

  async getContent(path: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.full(path));
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async putContent(path: string, content: string | Uint8Array): Promise<void> {
    const target = this.full(path);
    const temp = `${target}.tmp-${randomBytes(6).toString('hex')}`;
    await mkdir(dirname(target), { recursive: true });
    await writeFile(temp, content);
    await rename(temp, target);
  }

  async stat(path: string): Promise<FileInfo | undefined> {
    try {
      const s = await stat(this.full(path));
      return { size: s.size, modifiedMs: s.mtimeMs, isDirectory: s.isDirectory() };
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async list(path: string): Promise<string[]> {
    try {
      return await readdir(this.full(path));
    } catch (err) {
      if (isMissing(err)) return [];
      throw err;
    }
  }

  reader(path: string, range?: { start: number; end: number }): Readable {
    return createReadStream(this.full(path), { highWaterMark: readChunk, ...range });
  }

  async appender(path: string): Promise<Writable> {
    const target = this.full(path);
    await mkdir(dirname(target), { recursive: true });
    const stream = createWriteStream(target, { flags: 'a', highWaterMark: readChunk });
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
    return stream;
  }

  async move(from: string, to: string): Promise<void> {
    await mkdir(dirname(this.full(to)), { recursive: true });
    await rename(this.full(from), this.full(to));
  }

  async delete(path: string): Promise<void> {
    await rm(this.full(path), { recursive: true, force: true });
  }

  async touch(path: string): Promise<void> {
    const now = new Date();
    try {
      await utimes(this.full(path), now, now);
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
  }
}

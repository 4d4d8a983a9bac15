// A size-limited tmpfs on a fresh temp directory, for tests of what a full disk does to a
// server whose data lives there. dispose() unmounts it and removes the directory.
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, statfsSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallTmpfs {
  /** The mount point. */
  dir: string;
  /** Bytes still free for files. */
  free(): number;
  /** Writes a file of zeros at `path` until the filesystem is full; returns its size. */
  fill(path: string): number;
  dispose(): Promise<void>;
}

export async function mountSmallTmpfs(prefix: string, sizeMiB: number): Promise<SmallTmpfs> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0700`, 'tmpfs', dir]);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    dir,
    free: () => {
      const s = statfsSync(dir);
      return s.bavail * s.bsize;
    },
    fill: (path) => {
      const fd = openSync(path, 'a');
      let size = 0;
      try {
        // Large writes first, then single pages, until not one more byte fits.
        for (const piece of [Buffer.alloc(1 << 20), Buffer.alloc(4096), Buffer.alloc(1)]) {
          try {
            for (;;) size += writeSync(fd, piece);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
          }
        }
      } finally {
        closeSync(fd);
      }
      return size;
    },
    dispose: async () => {
      execFileSync('umount', ['-l', dir]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// A size-limited tmpfs, for tests of what a full disk does to a server whose data lives there:
// on a fresh temp directory, or on `at`. dispose() unmounts it and removes the directory.
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, statfsSync, writeSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
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

function isMountPoint(dir: string): boolean {
  return readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .some((l) => l.split(' ')[1] === dir);
}

export async function mountSmallTmpfs(sizeMiB: number, at?: string): Promise<SmallTmpfs> {
  const dir = at ?? (await mkdtemp(join(tmpdir(), 'svc-tmpfs-')));
  await mkdir(dir, { recursive: true });
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
      // A harness's cleanup may have unmounted it already.
      if (isMountPoint(dir)) execFileSync('umount', ['-l', dir]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// One process per data root: a lock file holding the owner's pid. A lock left by a process that
// no longer runs (kill -9) is taken over, so a crashed daemon restarts without manual cleanup.
import { open, readFile, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { processExists } from './process-exists';

export class LockHeldError extends Error {
  constructor(
    readonly path: string,
    readonly pid: number,
  ) {
    super(`${path} is locked by another running process (pid ${pid})`);
  }
}

function isRunning(pid: number): boolean {
  if (!processExists(pid)) return false;
  // A recycled pid belonging to some other program does not hold our lock.
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('node');
  } catch {
    return true;
  }
}

export interface PidLock {
  release(): Promise<void>;
}

export async function acquirePidLock(path: string): Promise<PidLock> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fh = await open(path, 'wx', 0o600);
      await fh.writeFile(`${process.pid}\n`);
      await fh.sync();
      await fh.close();
      return { release: () => rm(path, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const pid = Number((await readFile(path, 'utf8').catch(() => '')).trim());
    if (pid > 0 && pid !== process.pid && isRunning(pid)) throw new LockHeldError(path, pid);
    await rm(path, { force: true });
  }
  throw new Error(`could not acquire ${path}`);
}

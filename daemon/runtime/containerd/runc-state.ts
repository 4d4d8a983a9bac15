// runc's state of one task under svcd's own runc root (runc-options.ts), read and removed
// without containerd: for a task containerd lost track of (its Create cut short when containerd
// died: runc made the state and cgroups, the shim never recorded the task).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

export class RuncState {
  /** `root` is the runc root given to the shim; runc adds the containerd namespace. */
  constructor(
    private readonly root: string,
    private readonly namespace: string,
  ) {}

  private get dir(): string {
    return path.join(this.root, this.namespace);
  }

  has(id: string): boolean {
    return existsSync(path.join(this.dir, id));
  }

  /**
   * Kills what the container still runs and removes its state and its cgroups: runc killed in
   * its create may not have recorded them in the state, so they are removed by their path.
   */
  async remove(id: string, cgroupsPath: string): Promise<void> {
    await run('runc', ['--root', this.dir, 'delete', '--force', id]);
    await removeCgroup(cgroupsPath);
  }
}

const cgroupRoot = '/sys/fs/cgroup';
const rmdirAttempts = 100;

/** The cgroup in every hierarchy, its processes killed first (rmdir fails while any is left). */
async function removeCgroup(cgroupsPath: string): Promise<void> {
  for (const hierarchy of await readdir(cgroupRoot)) {
    const dir = path.join(cgroupRoot, hierarchy, cgroupsPath);
    for (let attempt = 1; ; attempt++) {
      const procs = await readFile(path.join(dir, 'cgroup.procs'), 'utf8').catch(() => undefined);
      if (procs === undefined) break; // not in this hierarchy, or removed through a co-mounted one
      for (const pid of procs.split('\n').filter(Boolean)) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {}
      }
      const removed = await rmdir(dir).then(
        () => true,
        (err: NodeJS.ErrnoException) => {
          if (err.code !== 'EBUSY' || attempt === rmdirAttempts) throw err;
          return false;
        },
      );
      if (removed) break;
      await sleep(20);
    }
  }
}

// runc's state of one task under svcd's own runc root (runc-options.ts), read and removed
// without containerd: for a task containerd lost track of (its Create cut short when containerd
// died: runc made the state and cgroups, the shim never recorded the task), or one it keeps but
// cannot delete.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, readlink, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { taskBundleDir } from './shim-tasks';

const run = promisify(execFile);

export class RuncState {
  /**
   * `root` is the runc root given to the shim; runc adds the containerd namespace. `containerdState`
   * holds containerd's task bundles, each with its shim's pid.
   */
  constructor(
    private readonly root: string,
    private readonly containerdState: string,
    private readonly namespace: string,
  ) {}

  /**
   * Removes the bundle containerd made for a task it then lost (it died in the task's Create,
   * with the shim): containerd neither lists nor cleans it, and refuses to create the task again
   * while its directory is there ("already exists"). A shim still running for it serves nothing
   * (containerd could not delete the task through it) and is killed first. Not when something is
   * mounted under it; its work directory, under containerd's root, goes with it.
   */
  private async removeLostBundle(id: string): Promise<void> {
    const bundle = this.bundle(id);
    if (!existsSync(bundle)) return;
    await killShim(bundle, id);
    const mounts = await readFile('/proc/self/mounts', 'utf8');
    if (mounts.split('\n').some((l) => l.split(' ')[1]?.startsWith(`${bundle}/`))) return;
    const work = await readlink(path.join(bundle, 'work')).catch(() => undefined);
    if (work?.endsWith(`/${this.namespace}/${id}`)) await rm(work, { recursive: true, force: true });
    await rm(bundle, { recursive: true, force: true });
  }

  private bundle(id: string): string {
    return taskBundleDir(this.containerdState, this.namespace, id);
  }

  private get dir(): string {
    return path.join(this.root, this.namespace);
  }

  /** Whether runc or containerd left anything of the task: state, a cgroup, a bundle. */
  has(id: string, cgroupsPath: string): boolean {
    return (
      existsSync(path.join(this.dir, id)) ||
      existsSync(this.bundle(id)) ||
      cgroupDirs(cgroupsPath).some((d) => existsSync(d))
    );
  }

  /**
   * Kills what the container still runs and removes its state and its cgroups (runc killed in
   * its create may not have recorded them in the state, so they are removed by their path), then
   * containerd's bundle of a task it lost.
   */
  async remove(id: string, cgroupsPath: string): Promise<void> {
    // runc cut short before it wrote state.json cannot delete its own state: the cgroups' processes
    // are killed and the directory (only runc's files, no mount) removed by hand then.
    const state = path.join(this.dir, id);
    const deleted =
      !existsSync(state) ||
      (await run('runc', ['--root', this.dir, 'delete', '--force', id]).then(
        () => true,
        () => false,
      ));
    await removeCgroup(cgroupsPath);
    if (!deleted) await rm(state, { recursive: true, force: true });
    await this.removeLostBundle(id);
  }
}

/** Kills the shim the bundle names (shim.pid) if it still runs for this task, and waits for its end. */
async function killShim(bundle: string, id: string): Promise<void> {
  const pid = Number(await readFile(path.join(bundle, 'shim.pid'), 'utf8').catch(() => ''));
  if (!Number.isInteger(pid) || pid <= 1) return;
  const isShim = async () => {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    return cmdline.includes('containerd-shim') && cmdline.includes(id);
  };
  if (!(await isShim())) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  for (let i = 0; i < shimExitWaits && (await isShim()); i++) await sleep(20);
}

const shimExitWaits = 100;

const cgroupRoot = '/sys/fs/cgroup';
const rmdirAttempts = 100;

/** The mounted hierarchies (cgroup v1's controllers, or v2's one): read once, they do not change. */
let hierarchies: string[] | undefined;

/** The cgroup's directory in every hierarchy; `has` asks at every container removal. */
function cgroupDirs(cgroupsPath: string): string[] {
  hierarchies ??= readdirSync(cgroupRoot);
  return hierarchies.map((hierarchy) => path.join(cgroupRoot, hierarchy, cgroupsPath));
}

/** The cgroup in every hierarchy, its processes killed first (rmdir fails while any is left). */
async function removeCgroup(cgroupsPath: string): Promise<void> {
  for (const dir of cgroupDirs(cgroupsPath)) {
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

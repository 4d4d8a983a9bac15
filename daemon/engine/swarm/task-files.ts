// The secrets and configs a task gets, as files under the data root bound read-only into its
// container. A task's secrets live on a tmpfs of their own, as dockerd keeps them, so their
// data is never written to disk; configs are plain files. Both are readable by the file's
// owner as the reference says, and the directories by root only.
import { execFile } from 'node:child_process';
import { chown, mkdir, rm, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import { InvalidParameterError } from '../../api/errors';
import type { Mount } from '../../api/container-types';
import type { FileReference, SwarmTask } from '../../api/swarm-types';
import type { ClusterState } from './cluster-state';

const run = promisify(execFile);

/** Where a reference's file appears in the container. */
function targetOf(kind: 'secret' | 'config', file: NonNullable<FileReference['File']>): string {
  if (kind === 'config') return posix.isAbsolute(file.Name) ? file.Name : `/${file.Name}`;
  return posix.isAbsolute(file.Name) ? file.Name : posix.join('/run/secrets', file.Name);
}

async function writeReferenced(dir: string, ref: FileReference, id: string, data: Buffer): Promise<string> {
  const file = join(dir, id);
  const mode = ref.File?.Mode ?? 0o444;
  await writeFile(file, data, { mode });
  await chown(file, Number(ref.File?.UID ?? 0), Number(ref.File?.GID ?? 0));
  return file;
}

export class TaskFiles {
  constructor(private readonly root: string) {}

  private dirOf(taskId: string): string {
    return join(this.root, taskId);
  }

  /** Writes the task's files and answers the binds that put them in its container. */
  async prepare(state: ClusterState, task: SwarmTask): Promise<Mount[]> {
    const spec = task.Spec.ContainerSpec ?? {};
    const mounts: Mount[] = [];
    const secrets = spec.Secrets ?? [];
    const configs = spec.Configs ?? [];
    if (!secrets.length && !configs.length) return mounts;
    const base = this.dirOf(task.ID);
    await mkdir(base, { recursive: true, mode: 0o700 });
    if (secrets.length) {
      const dir = join(base, 'secrets');
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await run('mount', ['-t', 'tmpfs', '-o', 'mode=0700,size=4m,nosuid,nodev,noexec', 'tmpfs', dir]).catch(
        (err: Error) => {
          throw new InvalidParameterError(`could not mount the task's secrets tmpfs: ${err.message}`);
        },
      );
      for (const ref of secrets) {
        const secret = state.secrets.find((s) => s.ID === ref.SecretID);
        if (!secret || !ref.File) continue;
        const source = await writeReferenced(
          dir,
          ref,
          secret.ID,
          Buffer.from(secret.Spec.Data ?? '', 'base64'),
        );
        mounts.push({ Type: 'bind', Source: source, Target: targetOf('secret', ref.File), ReadOnly: true });
      }
    }
    if (configs.length) {
      const dir = join(base, 'configs');
      await mkdir(dir, { recursive: true, mode: 0o700 });
      for (const ref of configs) {
        const config = state.configs.find((c) => c.ID === ref.ConfigID);
        if (!config || !ref.File) continue;
        const source = await writeReferenced(
          dir,
          ref,
          config.ID,
          Buffer.from(config.Spec.Data ?? '', 'base64'),
        );
        mounts.push({ Type: 'bind', Source: source, Target: targetOf('config', ref.File), ReadOnly: true });
      }
    }
    return mounts;
  }

  /** Removes a task's files (its secrets' tmpfs unmounted first). */
  async release(taskId: string): Promise<void> {
    const base = this.dirOf(taskId);
    await run('umount', [join(base, 'secrets')]).catch(() => undefined);
    await rm(base, { recursive: true, force: true });
  }
}

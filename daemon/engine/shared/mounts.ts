// Mounting on the host with mount(8): a snapshot's mounts, and what containers, volumes and
// plugins mount and unmount themselves.
import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { SystemError } from '../../api/errors';
import type { Mount } from '../../runtime/containerd/types';

const run = promisify(execFile);

export async function mountSnapshot(mounts: Mount[], target: string): Promise<void> {
  await mkdir(target, { recursive: true, mode: 0o711 });
  const m = mounts[0];
  const args =
    m.type === 'bind'
      ? ['--bind', m.source, target]
      : ['-t', m.type, '-o', m.options.join(','), m.source, target];
  try {
    await run('mount', args);
  } catch (err) {
    throw new SystemError(`mount ${target}: ${(err as { stderr?: string }).stderr?.trim() || String(err)}`);
  }
}

export async function isMounted(target: string): Promise<boolean> {
  const table = await readFile('/proc/self/mountinfo', 'utf8');
  return table.split('\n').some((line) => line.split(' ')[4] === target);
}

/** `known`: svcd mounted it itself, so the mount table need not be read. */
export async function unmount(target: string, known = false): Promise<void> {
  if (!known && !(await isMounted(target))) return;
  try {
    await run('umount', [target]);
  } catch {
    // Someone else unmounted it meanwhile: nothing left to do.
    if (known && !(await isMounted(target))) return;
    await run('umount', ['-l', target]);
  }
}

// Mounting on the host: a snapshot's mounts, and what containers, volumes and plugins mount and
// unmount themselves; through mount(2) and umount2(2) in svcd's process (host-calls.ts), or
// mount(8) and umount(8) where those cannot serve.
import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { SystemError } from '../../api/errors';
import type { Mount } from '../../runtime/containerd/types';
import {
  call,
  hostCalls,
  MNT_DETACH,
  MS_BIND,
  MS_NODEV,
  MS_NOEXEC,
  MS_NOSUID,
  MS_RDONLY,
} from '../../lib/host-calls';

const run = promisify(execFile);

/** Options mount(8) turns into mount(2)'s flags; the others are the filesystem's own. */
const flagOptions = new Map([
  ['ro', MS_RDONLY],
  ['rw', 0],
  ['nosuid', MS_NOSUID],
  ['nodev', MS_NODEV],
  ['noexec', MS_NOEXEC],
]);

/** mount(2) takes a page of filesystem options; longer ones (an image of many layers) go to mount(8). */
const maxOptionBytes = 4000;

/** The snapshot's mount through mount(2), or false where mount(8) must do it. */
async function mountDirectly(m: Mount, target: string): Promise<boolean> {
  const native = hostCalls();
  if (!native) return false;
  if (m.type === 'bind') {
    await call((done) => native.mount(m.source, target, null, MS_BIND, null, done));
    return true;
  }
  const data = m.options.filter((o) => !flagOptions.has(o)).join(',');
  if (Buffer.byteLength(data) > maxOptionBytes) return false;
  const flags = m.options.reduce((f, o) => f | (flagOptions.get(o) ?? 0), 0);
  await call((done) => native.mount(m.source, target, m.type, flags, data || null, done));
  return true;
}

export async function mountSnapshot(mounts: Mount[], target: string): Promise<void> {
  await mkdir(target, { recursive: true, mode: 0o711 });
  const m = mounts[0];
  const args =
    m.type === 'bind'
      ? ['--bind', m.source, target]
      : ['-t', m.type, '-o', m.options.join(','), m.source, target];
  try {
    if (!(await mountDirectly(m, target))) await run('mount', args);
  } catch (err) {
    throw new SystemError(
      `mount ${target}: ${(err as { stderr?: string }).stderr?.trim() || (err as Error).message}`,
    );
  }
}

export async function isMounted(target: string): Promise<boolean> {
  const table = await readFile('/proc/self/mountinfo', 'utf8');
  return table.split('\n').some((line) => line.split(' ')[4] === target);
}

function umount(target: string, lazy: boolean): Promise<unknown> {
  const native = hostCalls();
  if (native) return call((done) => native.umount(target, lazy ? MNT_DETACH : 0, done));
  return run('umount', lazy ? ['-l', target] : [target]);
}

/** `known`: svcd mounted it itself, so the mount table need not be read. */
export async function unmount(target: string, known = false): Promise<void> {
  if (!known && !(await isMounted(target))) return;
  try {
    await umount(target, false);
  } catch {
    // Someone else unmounted it meanwhile: nothing left to do.
    if (known && !(await isMounted(target))) return;
    await umount(target, true);
  }
}

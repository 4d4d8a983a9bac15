// Network namespaces that outlive any process: a file bind-mounted onto a new namespace, as
// `ip netns` does, but under svcd's data root so two engines never share a name; made and
// unmounted in svcd's process (host-calls.ts), or by unshare(1) and umount(8) without it.
import { execFile } from 'node:child_process';
import { mkdir, rm, statfs, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { SystemError } from '../../api/errors';
import { call, hostCalls } from '../../lib/host-calls';

const run = promisify(execFile);
/** statfs's f_type of a namespace file (nsfs). */
const NSFS_MAGIC = 0x6e736673;

export async function createNetns(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, '', { mode: 0o444 });
  try {
    const native = hostCalls();
    if (native) {
      await call((done) => native.netns(path, done));
      return;
    }
    await run('unshare', [`--net=${path}`, 'true']);
    // Loopback up, as every container has it.
    await run('nsenter', [`--net=${path}`, 'ip', 'link', 'set', 'lo', 'up']);
  } catch (err) {
    await removeNetns(path).catch(() => undefined);
    const e = err as { stderr?: string };
    throw new SystemError(`network namespace ${path}: ${e.stderr?.trim() || String(err)}`);
  }
}

export async function removeNetns(path: string): Promise<void> {
  const native = hostCalls();
  if (native) await call((done) => native.umount(path, 0, done)).catch(() => undefined);
  else await run('umount', [path]).catch(() => undefined);
  await rm(path, { force: true });
}

/**
 * Removes a namespace's file whose mount went away without svcd (a rootless svcd's mounts live in
 * rootlesskit's mount namespace and go with it): the plain file left would make the CNI plugins'
 * DEL fail ("unknown FS magic") before they release the address; with no file they take the
 * namespace as gone and release it.
 */
export async function dropStaleNetns(path: string): Promise<void> {
  const type = await statfs(path).then(
    (s) => s.type,
    () => undefined,
  );
  if (type !== undefined && type !== NSFS_MAGIC) await rm(path, { force: true });
}

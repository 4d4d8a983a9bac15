// A create runs in steps (directory and FIFOs, rootfs snapshot and mount, containerd's container)
// and its record is written last, so a create that svcd was killed in leaves those steps with no
// record to name them: no container is lost, but nothing would ever remove what they made.
import { readdir, rm } from 'node:fs/promises';
import { NotFoundError } from '../../api/errors';
import { unmount } from '../shared/mounts';
import type { EngineContext } from './engine-context';

const ignoreNotFound = (err: unknown) => {
  if (!(err instanceof NotFoundError)) throw err;
};

/**
 * At start, before anything creates: what creates without a record left, undone (the init layer
 * they shared goes with the init layer sweep). Answers the IDs swept.
 */
export async function sweepUnrecorded(ctx: EngineContext, recorded: Set<string>): Promise<string[]> {
  const names = await readdir(ctx.paths.containersDir).catch(() => [] as string[]);
  const unrecorded = names.filter((id) => /^[0-9a-f]{64}$/.test(id) && !recorded.has(id));
  for (const id of unrecorded) {
    await unmount(ctx.paths.rootfs(id));
    await ctx.client.containers.delete(id).catch(ignoreNotFound);
    await ctx.client.snapshots.remove(id).catch(ignoreNotFound);
    await rm(ctx.paths.dir(id), { recursive: true, force: true });
  }
  return unrecorded;
}

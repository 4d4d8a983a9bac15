// The end of a container's task: deleted at once when it exits (so the shim's teardown overlaps
// what follows), and whatever containerd or runc still hold of an earlier run removed before a
// new task or a removal.
import { NotFoundError } from '../../api/errors';
import { containerCgroupPath } from '../../runtime/oci-spec/build-spec';
import type { Container } from './container';
import type { EngineContext } from './engine-context';

export const SIGKILL = 9;

/** Waits for all of `work`, then throws the first failure. */
async function allOrFirstError(work: Array<Promise<unknown>>): Promise<void> {
  for (const r of await Promise.allSettled(work)) if (r.status === 'rejected') throw r.reason;
}

/**
 * SIGKILL reaches every process of the container's cgroup; without a cgroup (rootless, no
 * delegation) runc has none to read, and killing the init ends its pid namespace anyway.
 */
export function killScope(ctx: EngineContext, signal: number): { all: boolean } {
  return { all: signal === SIGKILL && !ctx.host.cgroupsUnavailable };
}

/**
 * Kills and deletes whatever task containerd still has for the container, and what is left of
 * a task containerd lost (its Create cut short when containerd died): runc's state and cgroups
 * and containerd's bundle, which no containerd call reaches. `alongside` runs once none of its
 * processes is left, concurrently with the task's deletion (the shim's teardown), which does
 * not touch what svcd mounted.
 */
export async function deleteStaleTask(
  ctx: EngineContext,
  container: Container,
  alongside: () => Promise<void> = async () => undefined,
): Promise<void> {
  await deleteTask(ctx, container, alongside);
  const { runcState } = ctx;
  const cgroup = containerCgroupPath(container.id, container.record.HostConfig);
  if (runcState.has(container.id, cgroup)) await runcState.remove(container.id, cgroup);
}

async function deleteTask(
  ctx: EngineContext,
  container: Container,
  alongside: () => Promise<void>,
): Promise<void> {
  const { tasks } = ctx.client;
  const id = container.id;
  const teardown = container.taskTeardown;
  if (teardown) {
    let deleted = false;
    await allOrFirstError([teardown.then((d) => (deleted = d)), alongside()]);
    // Once the teardown deleted it, containerd need not be asked again.
    return deleted ? undefined : deleteTask(ctx, container, async () => undefined);
  }
  let status: string;
  try {
    status = (await tasks.get(id)).status;
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
    // containerd may still list a task its shim does not know (containerd died in the task's
    // Create): Get says not found, Create "already exists"; Delete drops it.
    await tasks.delete(id).catch(() => undefined);
    return alongside();
  }
  if (status !== 'STOPPED') {
    const exited = tasks.wait(id);
    if (status === 'PAUSED') await tasks.resume(id).catch(() => undefined);
    await tasks.kill(id, SIGKILL, killScope(ctx, SIGKILL));
    await exited;
  }
  await allOrFirstError([
    tasks.delete(id).catch((err: unknown) => {
      if (!(err instanceof NotFoundError)) throw err;
    }),
    alongside(),
  ]);
}

/** Starts deleting the exited task at once, so the shim's teardown overlaps what follows. */
export function tearDownTask(ctx: EngineContext, container: Container): void {
  const teardown: Promise<boolean> = ctx.client.tasks
    .delete(container.id)
    .then(
      () => true,
      () => false,
    )
    .then((deleted) => {
      if (container.taskTeardown === teardown) container.taskTeardown = undefined;
      return deleted;
    });
  container.taskTeardown = teardown;
}

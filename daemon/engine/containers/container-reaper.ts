// A removal in two halves. DELETE answers once the container's record is retired on disk (one
// rename and a directory fsync): from then on no restart of svcd shows the container again. What
// the container held (its task and shim, runc's state, its rootfs mount and writable snapshot,
// containerd's container, its directory) is taken apart here, off the request's path, which
// spared the answer the shim's shutdown, a umount(8) and three containerd round trips; with
// containerd away it is tried again until it comes back. svcd killed in between leaves the
// retired record in its directory: the next start takes the container apart from it the same
// way, before anything runs, so nothing leaks.
import { readdir, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { NotFoundError } from '../../api/errors';
import { Container } from './container';
import { initShared } from './container-create';
import type { EngineContext } from './engine-context';

/** Deletes the container's task (shim, runc state), running `alongside` once its processes are gone. */
export type DeleteTask = (container: Container, alongside: () => Promise<void>) => Promise<void>;

/** The first wait before a teardown is tried again, doubled up to the last. */
const firstRetryMs = 200;
const lastRetryMs = 3_000;

export class ContainerReaper {
  /** Removals under way, by container ID. */
  private readonly pending = new Map<string, Promise<void>>();
  /** Aborted when svcd stops: the waits between tries end, and so do the tries. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly ctx: EngineContext,
    private readonly deleteTask: DeleteTask,
  ) {}

  /**
   * Takes apart what a container held, now, with its record still in place: for a removal that
   * must see that done before it goes on (anonymous volumes go only once no task holds them).
   */
  async takeApart(container: Container): Promise<void> {
    const { client, rootfs } = this.ctx;
    const r = container.record;
    // A container never started holds nothing in containerd (container-prepare.ts).
    const layer = async () => {
      if (container.layerMade) await rootfs.removeLayer(container.id, r.Rootfs);
    };
    if (container.runtimeMade) await this.deleteTask(container, layer);
    else await layer();
    rootfs.leaveInitLayer(r.InitSnapshotKey, initShared(this.ctx, r.InitSnapshotKey, container.id));
    if (!container.runtimeMade) return;
    await client.containers.delete(container.id).catch((err: unknown) => {
      if (!(err instanceof NotFoundError)) throw err;
    });
  }

  /** In the background: takes apart the container whose record was just retired, then its directory. */
  reap(container: Container): void {
    const id = container.id;
    const work = this.reapUntilDone(container).finally(() => this.pending.delete(id));
    this.pending.set(id, work);
  }

  /**
   * Tries again while svcd runs: containerd may be away for a while (killed, being restarted).
   * Once svcd stops, the rootfs is unmounted and the rest left to the next start.
   */
  private async reapUntilDone(container: Container): Promise<void> {
    const id = container.id;
    for (let delay = firstRetryMs; ; delay = Math.min(2 * delay, lastRetryMs)) {
      try {
        return await this.reapNow(container);
      } catch (err) {
        const error = (err as Error).message;
        if (this.stopping.signal.aborted) {
          this.ctx.log.warn('removed container left for the next start', { id, error });
          return this.ctx.rootfs.release(container.record.Rootfs);
        }
        this.ctx.log.warn('removed container not taken apart yet', { id, error, retryMs: delay });
        await sleep(delay, undefined, { signal: this.stopping.signal }).catch(() => undefined);
      }
    }
  }

  private async reapNow(container: Container): Promise<void> {
    await this.takeApart(container);
    // Only once the rootfs is unmounted: a recursive removal would go through the mount.
    await rm(this.ctx.paths.dir(container.id), { recursive: true, force: true });
  }

  /**
   * At start, before anything runs: the containers whose records were retired by a removal that
   * svcd did not see through, taken apart. Answers those done, and those that failed (their
   * directories must be left to them, not to the sweep of interrupted creates).
   */
  async reapRetired(): Promise<{ reaped: string[]; failed: string[] }> {
    const names = await readdir(this.ctx.paths.containersDir).catch(() => [] as string[]);
    const reaped: string[] = [];
    const failed: string[] = [];
    for (const id of names) {
      if (!/^[0-9a-f]{64}$/.test(id) || this.pending.has(id)) continue;
      const record = await this.ctx.store.retired(id).catch(() => undefined);
      if (!record) continue;
      try {
        await this.reapNow(new Container(record));
        reaped.push(id);
      } catch (err) {
        this.ctx.log.warn('removed container not taken apart', { id, error: (err as Error).message });
        failed.push(id);
      }
    }
    return { reaped, failed };
  }

  /** Waits for the removals under way (each tried once more), so a stopping svcd leaves none half done. */
  async drain(): Promise<void> {
    this.stopping.abort();
    while (this.pending.size) await Promise.all(this.pending.values());
  }
}

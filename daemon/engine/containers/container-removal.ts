// DELETE /containers/{id} (a link's removal included) and POST /containers/prune: the checks a
// removal makes, then the record retired, then the reaper's taking apart of the task, layers and directory.
import type { ContainerPruneResponse } from '../../api/container-summary-types';
import { ConflictError } from '../../api/errors';
import type { Filters } from '../../api/filters';
import { checkFilterKeys, labelMatches } from '../../lib/filters';
import type { Container } from './container';
import { refreshHosts } from './container-endpoints';
import type { ContainerLifecycle } from './container-lifecycle';
import { removeLink } from './container-links';
import type { ContainerLogs } from './container-logs';
import type { ContainerReaper } from './container-reaper';
import { isRunning, markDead, markRemoving } from './container-state';
import { type EngineContext, publishContainerEvent, saveRecord } from './engine-context';

export interface RemoveOptions {
  force: boolean;
  volumes: boolean;
  link?: boolean;
}

export class ContainerRemoval {
  constructor(
    private readonly ctx: EngineContext,
    private readonly lifecycle: ContainerLifecycle,
    private readonly logs: ContainerLogs,
    private readonly reaper: ContainerReaper,
  ) {}

  async remove(ref: string, opts: RemoveOptions): Promise<void> {
    if (opts.link) {
      const parent = removeLink(this.ctx, ref);
      await parent.exclusive(async () => {
        await saveRecord(this.ctx, parent);
        await refreshHosts(this.ctx, parent);
      });
      return;
    }
    const container = this.ctx.registry.get(ref);
    await container.exclusive(async () => {
      const s = container.record.State;
      if (s.Status === 'removing')
        throw new ConflictError(`removal of container ${container.id} is already in progress`);
      if (s.Paused && !opts.force) {
        throw new ConflictError(
          `You cannot remove a paused container ${container.id}. Unpause and then stop the container before attempting removal or force remove`,
        );
      }
      if ((isRunning(s) || s.Status === 'restarting') && !opts.force) {
        throw new ConflictError(
          `You cannot remove a running container ${container.id}: stop the container before removing or force remove`,
        );
      }
      if (opts.force) await this.lifecycle.forceKill(container);
      await this.destroy(container, opts.volumes);
    });
  }

  /**
   * Answers once the record is retired on disk; the reaper takes the rest apart (see
   * container-reaper.ts). Anonymous volumes to remove wait for that first, under a record saved
   * as removing: a removal cut short there leaves the container dead, as dockerd does.
   */
  private async destroy(container: Container, removeVolumes: boolean): Promise<void> {
    const r = container.record;
    markRemoving(r.State);
    const volumes = removeVolumes ? r.AnonymousVolumes : [];
    try {
      if (volumes.length) {
        await saveRecord(this.ctx, container);
        await this.reaper.takeApart(container);
        for (const v of volumes) await this.ctx.volumes.removeAnonymous(v, container.id);
      }
      await container.networkTeardown;
      await this.ctx.store.retire(container.id);
    } catch (err) {
      markDead(r.State, `removal failed: ${(err as Error).message}`);
      await saveRecord(this.ctx, container).catch(() => undefined);
      throw err;
    }
    this.ctx.registry.remove(container);
    this.logs.forget(container);
    publishContainerEvent(this.ctx, container, 'destroy');
    container.notifyRemoved();
    this.reaper.reap(container);
  }

  async prune(filters: Filters): Promise<ContainerPruneResponse> {
    const deleted: string[] = [];
    let reclaimed = 0;
    const until = filters.get('until')?.[0];
    const untilMs = until ? (/^\d+$/.test(until) ? Number(until) * 1000 : Date.parse(until)) : undefined;
    checkFilterKeys(filters, ['until', 'label', 'label!']);
    for (const c of this.ctx.registry.all()) {
      const r = c.record;
      if (r.State.Status !== 'exited' && r.State.Status !== 'created' && r.State.Status !== 'dead') continue;
      if (untilMs !== undefined && Date.parse(r.Created) >= untilMs) continue;
      const has = (v: string) => labelMatches(r.Config.Labels ?? {}, v);
      if (!(filters.get('label') ?? []).every(has) || (filters.get('label!') ?? []).some(has)) continue;
      const size = await this.ctx.rootfs.sizeRw(c.id, r.InitSnapshotKey).catch(() => 0);
      try {
        await this.remove(c.id, { force: false, volumes: false });
        deleted.push(c.id);
        reclaimed += size;
      } catch (err) {
        this.ctx.log.warn('prune: cannot remove container', { id: c.id, error: (err as Error).message });
      }
    }
    this.ctx.events.publish('container', 'prune', { id: '', attributes: { reclaimed: String(reclaimed) } });
    return { ContainersDeleted: deleted.length > 0 ? deleted : null, SpaceReclaimed: reclaimed };
  }
}

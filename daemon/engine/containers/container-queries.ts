// The read side of the containers engine: inspect, list with sizes, top, changes and wait.
import type {
  ContainerChange,
  ContainerInspect,
  ContainerListRequest,
  ContainerSummary,
  ContainerTopResponse,
  ContainerWaitResponse,
  WaitCondition,
} from '../../api/container-summary-types';
import { ConflictError } from '../../api/errors';
import type { Container } from './container';
import { listContainers } from './container-list';
import type { ContainerLogs } from './container-logs';
import { prepareRootfs } from './container-prepare';
import { isRunning } from './container-state';
import { processesOf, psTop } from './container-top';
import { inspectView, type Sizes } from './container-view';
import { type EngineContext, publishContainerEvent } from './engine-context';

export class ContainerQueries {
  constructor(
    private readonly ctx: EngineContext,
    private readonly logs: ContainerLogs,
    /** The exec instances of a container not yet finished, for inspect's ExecIDs. */
    private readonly execIdsOf: (containerId: string) => string[],
  ) {}

  /** The container, which must be running (409 otherwise). */
  running(ref: string): Container {
    const container = this.ctx.registry.get(ref);
    if (!isRunning(container.record.State))
      throw new ConflictError(`Container ${container.id} is not running`);
    return container;
  }

  async sizes(container: Container): Promise<Sizes> {
    const rw = await this.ctx.rootfs.sizeRw(container.id, container.record.InitSnapshotKey).catch(() => 0);
    const base = await this.ctx.client.snapshots
      .usage(container.record.InitSnapshotKey)
      .catch(() => ({ size: 0 }));
    return { SizeRw: rw, SizeRootFs: rw + (await this.imageSize(container)) + base.size };
  }

  /** Size of the image's layers below the container (what dockerd counts into SizeRootFs). */
  private async imageSize(container: Container): Promise<number> {
    let total = 0;
    let info = await this.ctx.client.snapshots.stat(container.record.InitSnapshotKey).catch(() => undefined);
    while (info?.parent) {
      total += (await this.ctx.client.snapshots.usage(info.parent).catch(() => ({ size: 0 }))).size;
      info = await this.ctx.client.snapshots.stat(info.parent).catch(() => undefined);
    }
    return total;
  }

  async inspect(ref: string, size: boolean): Promise<ContainerInspect> {
    const container = this.ctx.registry.get(ref);
    return inspectView(
      container.record,
      size ? await this.sizes(container) : {},
      this.execIdsOf(container.id),
      this.ctx.client.snapshotter,
      this.logs.path(container),
    );
  }

  list(opts: ContainerListRequest): Promise<ContainerSummary[]> {
    return listContainers(
      {
        registry: this.ctx.registry,
        imageIds: async (ref) => {
          const image = await this.ctx.images.resolveForContainer(ref).catch(() => undefined);
          return image ? [image.id] : [];
        },
        sizes: (c) => this.sizes(c),
      },
      opts,
    );
  }

  async top(ref: string, psArgs: string): Promise<ContainerTopResponse> {
    const container = this.running(ref);
    const pids = this.ctx.host.cgroupsUnavailable
      ? await processesOf(container.record.State.Pid)
      : await this.ctx.client.tasks.pids(container.id);
    const result = await psTop(pids, psArgs);
    publishContainerEvent(this.ctx, container, 'top');
    return result;
  }

  async changes(ref: string): Promise<ContainerChange[]> {
    const container = this.ctx.registry.get(ref);
    await prepareRootfs(this.ctx, container);
    return this.ctx.rootfs.changes(container.id, container.record.InitSnapshotKey);
  }

  /** The promise of the wait's result, registered at once so a start right after cannot be missed. */
  waitFor(container: Container, condition: WaitCondition): Promise<ContainerWaitResponse> {
    const result = (code: number, error: string): ContainerWaitResponse => ({
      StatusCode: code,
      Error: error ? { Message: error } : null,
    });
    if (condition === 'removed') {
      return container
        .whenRemoved()
        .then(() => result(container.record.State.ExitCode, container.record.State.Error));
    }
    const s = container.record.State;
    // not-running answers at the first exit even when a restart policy runs the container again,
    // as dockerd does; a container waiting for that restart counts as running until it exits.
    if (condition === 'not-running' && !isRunning(s) && s.Status !== 'restarting') {
      // An exit just seen may not be on disk yet: svcd killed after the answer must not lose it.
      const answer = result(s.ExitCode, s.Error);
      return (container.exitSaved ?? Promise.resolve()).then(() => answer);
    }
    return container.nextExit().then((e) => result(e.exitCode, e.error));
  }
}

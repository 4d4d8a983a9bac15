// The start path of a container: its rootfs, IO, volumes and network endpoints made ready, the
// task created and started, and the record and events saying so; and the other way in, a task
// that kept running while svcd was away picked up again.
import { InvalidParameterError, SvcError } from '../../api/errors';
import { isAlreadyExists } from '../../runtime/containerd/grpc-errors';
import type { TaskIO } from '../../runtime/containerd/tasks-service';
import type { Container } from './container';
import { connectNetworks, disconnectNetworks } from './container-endpoints';
import { ContainerIO } from './container-io';
import type { ContainerIOFeed } from './container-io-feed';
import { prepareShimLog, shimLogOf } from './container-log-driver';
import { prepareRuntime } from './container-prepare';
import { nowRfc3339Nano } from './container-record';
import { markPaused, markRunning, markStartFailed } from './container-state';
import { type EngineContext, publishContainerEvent, saveRecord } from './engine-context';
import { startHealthMonitor } from './health-monitor';
import { deleteStaleTask } from './task-teardown';
import { publishVolumeMounts, volumeNames } from './volume-events';

export interface Exit {
  exitStatus: number;
  exitedAt?: Date;
}

/** containerd's start errors for a command that cannot run are the client's fault (400), as dockerd says. */
function startError(err: unknown): SvcError {
  const message = err instanceof Error ? err.message : String(err);
  if (/executable file not found|no such file or directory|permission denied/i.test(message)) {
    return new InvalidParameterError(message);
  }
  return err instanceof SvcError ? err : new InvalidParameterError(message);
}

/** What the start path calls back into, given at construction. */
export interface StartHooks {
  /** Told of each new IO of a container. */
  ioFeed: ContainerIOFeed;
  /** Called when an AutoRemove container should go: its start failed. */
  onAutoRemove: (container: Container) => void;
  /** A process quick enough to exit before its start was recorded: its exit, to be handled now. */
  onEarlyExit: (container: Container, exit: Exit) => void;
}

export class TaskStarter {
  constructor(
    private readonly ctx: EngineContext,
    private readonly hooks: StartHooks,
  ) {}

  /** Creates and starts the task; on failure records why in State and throws. */
  async run(container: Container): Promise<void> {
    const { client, paths } = this.ctx;
    const id = container.id;
    const record = container.record;
    let io: ContainerIO | undefined;
    try {
      await container.taskTeardown;
      await container.networkTeardown;
      await prepareRuntime(this.ctx, container);
      io = await ContainerIO.create({
        dir: paths.io(id),
        openStdin: !!record.Config.OpenStdin,
        tty: !!record.Config.Tty,
        shimLog: await prepareShimLog(paths, record),
      });
      this.hooks.ioFeed.announce(container, io);
      container.starting = true;
      container.pendingExit = undefined;
      await this.ctx.volumes.prepare(volumeNames(container), container.id);
      await connectNetworks(this.ctx, container);
      await this.createTask(container, io.paths as TaskIO);
      let pid: number;
      // Taken before the start: a short process may have exited by the time start returns.
      const startedAt = nowRfc3339Nano();
      try {
        pid = await client.tasks.start(id);
      } catch (err) {
        await client.tasks.delete(id).catch(() => undefined);
        throw err;
      }
      container.io = io;
      container.runStartedAt = Date.now();
      markRunning(record.State, pid, startedAt);
      container.stopHealth = startHealthMonitor(this.ctx, container);
      await saveRecord(this.ctx, container);
      publishVolumeMounts(this.ctx.events, container, 'mount');
      publishContainerEvent(this.ctx, container, 'start');
      container.starting = false;
      // A process quick enough to exit before its start was recorded.
      const early = container.pendingExit;
      if (early) this.hooks.onEarlyExit(container, early);
    } catch (err) {
      container.starting = false;
      io?.close();
      const failure = startError(err);
      markStartFailed(record.State, failure.message);
      await saveRecord(this.ctx, container).catch(() => undefined);
      await this.ctx.volumes.release(volumeNames(container), container.id).catch(() => undefined);
      await disconnectNetworks(this.ctx, container).catch(() => undefined);
      // As dockerd: a container that could not start goes too, or a client waiting for its
      // removal (`docker run --rm` waits on condition=removed) would wait for ever.
      if (record.HostConfig.AutoRemove) this.hooks.onAutoRemove(container);
      throw failure;
    }
  }

  /** Creates the task; one left from an earlier run (svcd lost track of it) goes first. */
  private async createTask(container: Container, io: TaskIO): Promise<void> {
    const { tasks } = this.ctx.client;
    try {
      await tasks.create(container.id, { ...io, rootfs: [], options: this.ctx.taskOptions });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      await deleteStaleTask(this.ctx, container);
      // The stale task's exit is not this run's.
      container.pendingExit = undefined;
      await tasks.create(container.id, { ...io, rootfs: [], options: this.ctx.taskOptions });
    }
  }

  /** Picks up a task that kept running while svcd was away. */
  reattach(container: Container, pid: number, paused: boolean): void {
    const record = container.record;
    container.io = ContainerIO.reopen({
      dir: this.ctx.paths.io(container.id),
      openStdin: !!record.Config.OpenStdin,
      tty: !!record.Config.Tty,
      shimLog: shimLogOf(this.ctx.paths, record),
    });
    this.hooks.ioFeed.announce(container, container.io);
    container.runStartedAt = Date.parse(record.State.StartedAt);
    record.State.Pid = pid;
    markPaused(record.State, paused);
    container.stopHealth = startHealthMonitor(this.ctx, container);
  }
}

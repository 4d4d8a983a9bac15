// Start, stop, kill, pause, restart and the handling of exits (restart policies, AutoRemove)
// for containers whose processes are containerd tasks behind runc shims.
import { readFile } from 'node:fs/promises';
import {
  ConflictError,
  InvalidParameterError,
  NotFoundError,
  NotModifiedError,
  SvcError,
} from '../../api/errors';
import { isAlreadyExists, isExitedProcess } from '../../runtime/containerd/grpc-errors';
import type { TaskIO } from '../../runtime/containerd/tasks-service';
import { parseSignal } from '../../runtime/oci-spec/signals';
import { containerCgroupPath } from '../../runtime/oci-spec/build-spec';
import type { Container } from './container';
import { nowRfc3339Nano } from './container-record';
import { ContainerIO } from './container-io';
import { prepareShimLog, shimLogOf } from './container-log-driver';
import type { ContainerIOFeed } from './container-io-feed';
import {
  isRunning,
  markExited,
  markPaused,
  markRestarting,
  markRunning,
  markStartFailed,
} from './container-state';
import { type EngineContext, publishContainerEvent, saveRecord } from './engine-context';
import { startHealthMonitor } from './health-monitor';
import { nextRestartDelay, shouldRestart } from './restart-decision';
import { publishVolumeMounts, volumeNames } from './volume-events';
import { connectNetworks, disconnectNetworks } from './container-endpoints';

const SIGKILL = 9;
const defaultStopTimeoutSec = 10;

export interface Exit {
  exitStatus: number;
  exitedAt?: Date;
}

/** Waits for all of `work`, then throws the first failure. */
async function allOrFirstError(work: Array<Promise<unknown>>): Promise<void> {
  for (const r of await Promise.allSettled(work)) if (r.status === 'rejected') throw r.reason;
}

/** containerd's start errors for a command that cannot run are the client's fault (400), as dockerd says. */
function startError(err: unknown): SvcError {
  const message = err instanceof Error ? err.message : String(err);
  if (/executable file not found|no such file or directory|permission denied/i.test(message)) {
    return new InvalidParameterError(message);
  }
  return err instanceof SvcError ? err : new InvalidParameterError(message);
}

/** What the lifecycle calls back into, given at construction. */
export interface LifecycleHooks {
  /** Told of each new IO of a container. */
  ioFeed: ContainerIOFeed;
  /** Called when an AutoRemove container should go: it exited, or its start failed. */
  onAutoRemove: (container: Container) => void;
  /** Prepares a fresh spec at start when it depends on other containers (container:<x> modes). */
  beforeStart: (container: Container) => Promise<void>;
}

export class ContainerLifecycle {
  constructor(
    private readonly ctx: EngineContext,
    private readonly hooks: LifecycleHooks,
  ) {}

  /**
   * SIGKILL reaches every process of the container's cgroup; without a cgroup (rootless, no
   * delegation) runc has none to read, and killing the init ends its pid namespace anyway.
   */
  private killScope(signal: number): { all: boolean } {
    return { all: signal === SIGKILL && !this.ctx.host.cgroupsUnavailable };
  }

  private stopSignal(container: Container): number {
    const s = container.record.Config.StopSignal;
    return s === undefined || s === '' ? 15 : parseSignal(s);
  }

  async start(container: Container): Promise<void> {
    await container.exclusive(async () => {
      const state = container.record.State;
      if (state.Status === 'paused') {
        throw new ConflictError('cannot start a paused container, try unpause instead');
      }
      if (state.Status === 'running') throw new NotModifiedError();
      if (state.Status === 'removing' || state.Status === 'dead') {
        throw new ConflictError(`container ${container.id} is marked for removal and cannot be started`);
      }
      container.cancelRestart?.();
      container.record.ManuallyStopped = false;
      container.restartDelayMs = 0;
      await this.runTask(container);
    });
  }

  /** Creates and starts the task; on failure records why in State and throws. */
  private async runTask(container: Container): Promise<void> {
    const { client, paths, rootfs } = this.ctx;
    const id = container.id;
    const record = container.record;
    let io: ContainerIO | undefined;
    try {
      await rootfs.ensureMounted(id, record.Rootfs);
      await container.taskTeardown;
      await container.networkTeardown;
      await this.hooks.beforeStart(container);
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
      if (early) void this.handleExit(container, early);
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
      await this.deleteStaleTask(container);
      // The stale task's exit is not this run's.
      container.pendingExit = undefined;
      await tasks.create(container.id, { ...io, rootfs: [], options: this.ctx.taskOptions });
    }
  }

  /**
   * Kills and deletes whatever task containerd still has for the container, and what is left of
   * a task containerd lost (its Create cut short when containerd died): runc's state and cgroups
   * and containerd's bundle, which no containerd call reaches. `alongside` runs once none of its
   * processes is left, concurrently with the task's deletion (the shim's teardown), which does
   * not touch what svcd mounted.
   */
  async deleteStaleTask(
    container: Container,
    alongside: () => Promise<void> = async () => undefined,
  ): Promise<void> {
    await this.deleteTask(container, alongside);
    const { runcState } = this.ctx;
    const cgroup = containerCgroupPath(container.id, container.record.HostConfig);
    if (runcState.has(container.id, cgroup)) await runcState.remove(container.id, cgroup);
  }

  private async deleteTask(container: Container, alongside: () => Promise<void>): Promise<void> {
    const { tasks } = this.ctx.client;
    const id = container.id;
    const teardown = container.taskTeardown;
    if (teardown) {
      let deleted = false;
      await allOrFirstError([teardown.then((d) => (deleted = d)), alongside()]);
      // Once the teardown deleted it, containerd need not be asked again.
      return deleted ? undefined : this.deleteTask(container, async () => undefined);
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
      await tasks.kill(id, SIGKILL, this.killScope(SIGKILL));
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
  private tearDownTask(container: Container): void {
    const teardown: Promise<boolean> = this.ctx.client.tasks
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

  /** Sends `signal` and, when `waitMs` is given, waits for the exit that long. */
  private async signalAndWait(container: Container, signal: number, waitMs?: number): Promise<boolean> {
    const exited = container.nextExit();
    // containerd's Wait answers even when the exit event was missed.
    void this.ctx.client.tasks
      .wait(container.id)
      .then((e) => this.handleExit(container, { exitStatus: e.exitStatus, exitedAt: e.exitedAt }))
      .catch(() => undefined);
    publishContainerEvent(this.ctx, container, 'kill', { signal: String(signal) });
    try {
      await this.ctx.client.tasks.kill(container.id, signal, this.killScope(signal));
    } catch (err) {
      // The process has just exited on its own: its exit is being recorded, nothing to signal.
      if (!isExitedProcess(err)) throw err;
      if (!isRunning(container.record.State)) return true;
    }
    // A frozen process cannot act on its signal until it thaws.
    if (container.record.State.Paused)
      await this.ctx.client.tasks.resume(container.id).catch(() => undefined);
    if (waitMs === undefined) return false;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), waitMs)));
    const done = await Promise.race([exited.then(() => true), timeout]);
    clearTimeout(timer);
    return done;
  }

  /** Stop signal, t seconds, then SIGKILL (t < 0 waits for ever). */
  private async stopTask(container: Container, timeoutSec: number | undefined): Promise<void> {
    const t = timeoutSec ?? container.record.Config.StopTimeout ?? defaultStopTimeoutSec;
    const exited = container.nextExit();
    container.inGracePeriod = true;
    let graceful: boolean;
    try {
      graceful = await this.signalAndWait(
        container,
        this.stopSignal(container),
        t < 0 ? 2 ** 31 - 1 : t * 1000,
      );
    } finally {
      container.inGracePeriod = false;
    }
    if (!graceful) await this.signalAndWait(container, SIGKILL, 2 ** 31 - 1);
    await exited;
  }

  /** Leaves the restart delay: the container is simply exited. */
  private async cancelPendingRestart(container: Container): Promise<void> {
    container.cancelRestart?.();
    container.cancelRestart = undefined;
    markExited(container.record.State, { exitCode: container.record.State.ExitCode });
    await saveRecord(this.ctx, container);
    container.notifyExit(container.record.State.ExitCode, '');
  }

  async stop(container: Container, timeoutSec?: number): Promise<void> {
    await container.exclusive(async () => {
      const state = container.record.State;
      container.record.ManuallyStopped = true;
      if (state.Status === 'restarting') {
        await this.cancelPendingRestart(container);
      } else if (!isRunning(state)) {
        throw new NotModifiedError();
      } else {
        await saveRecord(this.ctx, container);
        await this.stopTask(container, timeoutSec);
      }
      publishContainerEvent(this.ctx, container, 'stop');
    });
  }

  async restart(container: Container, timeoutSec?: number): Promise<void> {
    await container.exclusive(async () => {
      const state = container.record.State;
      container.record.ManuallyStopped = true;
      const wasUp = isRunning(state);
      if (state.Status === 'restarting') await this.cancelPendingRestart(container);
      else if (wasUp) await this.stopTask(container, timeoutSec);
      // dockerd's restart is its stop, then its start: both are announced.
      if (wasUp) publishContainerEvent(this.ctx, container, 'stop');
      container.record.ManuallyStopped = false;
      container.restartDelayMs = 0;
      await this.runTask(container);
      publishContainerEvent(this.ctx, container, 'restart');
    });
  }

  async kill(container: Container, signalText: string | undefined): Promise<void> {
    const signal = signalText ? parseSignal(signalText) : SIGKILL;
    // A stop holds the lock for up to its timeout: as dockerd's, a kill then reaches the task at
    // once (the stop has already marked the container manually stopped) and the stop sees the exit.
    if (container.inGracePeriod) {
      const exited = container.nextExit();
      publishContainerEvent(this.ctx, container, 'kill', { signal: String(signal) });
      try {
        await this.ctx.client.tasks.kill(container.id, signal, this.killScope(signal));
      } catch (err) {
        // It has just exited on its own: nothing to signal, nor to wait for once recorded.
        if (!isExitedProcess(err)) throw err;
        if (!isRunning(container.record.State)) return;
      }
      if (signal === SIGKILL) await exited;
      return;
    }
    await container.exclusive(async () => {
      const state = container.record.State;
      if (state.Status === 'restarting' && signal === SIGKILL) {
        container.record.ManuallyStopped = true;
        await this.cancelPendingRestart(container);
        return;
      }
      if (!isRunning(state)) {
        throw new ConflictError(
          `Cannot kill container: ${container.id}: Container ${container.id} is not running`,
        );
      }
      if (signal === SIGKILL || signal === this.stopSignal(container)) {
        container.record.ManuallyStopped = true;
        await saveRecord(this.ctx, container);
      }
      await this.signalAndWait(container, signal, signal === SIGKILL ? 2 ** 31 - 1 : undefined);
    });
  }

  async pause(container: Container): Promise<void> {
    await container.exclusive(async () => {
      const state = container.record.State;
      if (!isRunning(state)) throw new ConflictError(`Container ${container.id} is not running`);
      if (state.Paused) throw new ConflictError(`Container ${container.id} is already paused`);
      const noCgroup = this.ctx.host.cgroupsUnavailable;
      if (noCgroup)
        throw new ConflictError(
          `Cannot pause container ${container.id}: rootless svcd pauses through the container's cgroup, and ${noCgroup}`,
        );
      await this.ctx.client.tasks.pause(container.id);
      markPaused(state, true);
      await saveRecord(this.ctx, container);
      publishContainerEvent(this.ctx, container, 'pause');
    });
  }

  async unpause(container: Container): Promise<void> {
    await container.exclusive(async () => {
      const state = container.record.State;
      if (!state.Paused) throw new ConflictError(`Container ${container.id} is not paused`);
      await this.ctx.client.tasks.resume(container.id);
      markPaused(state, false);
      await saveRecord(this.ctx, container);
      publishContainerEvent(this.ctx, container, 'unpause');
    });
  }

  /** Kills a running container for DELETE ?force=1 (the caller holds the lock). */
  async forceKill(container: Container): Promise<void> {
    const state = container.record.State;
    container.record.ManuallyStopped = true;
    if (state.Status === 'restarting') await this.cancelPendingRestart(container);
    else if (isRunning(state)) await this.signalAndWait(container, SIGKILL, 2 ** 31 - 1);
  }

  markOom(container: Container): void {
    if (!isRunning(container.record.State)) return;
    container.record.State.OOMKilled = true;
    publishContainerEvent(this.ctx, container, 'oom');
  }

  /** The task's init process exited: record it, then restart, auto-remove, or leave it. */
  async handleExit(container: Container, exit: Exit): Promise<void> {
    const record = container.record;
    if (container.starting) {
      container.pendingExit = exit;
      return;
    }
    if (!isRunning(record.State) || container.exitInProgress) return;
    container.exitInProgress = true;
    try {
      await this.recordExit(container, exit);
    } finally {
      container.exitInProgress = false;
    }
  }

  private async recordExit(container: Container, exit: Exit): Promise<void> {
    const record = container.record;
    const exitCode = exit.exitStatus;
    // containerd's oom event can arrive after the exit: the cgroup, still there until the task
    // is deleted, says for sure whether the kernel killed for memory.
    if (
      exitCode === 137 &&
      !record.State.OOMKilled &&
      (await oomKilled(containerCgroupPath(container.id, record.HostConfig)))
    ) {
      this.markOom(container);
    }
    container.stopHealth?.();
    container.stopHealth = undefined;
    const io = container.io;
    container.io = undefined;
    markExited(record.State, { exitCode, exitedAt: exit.exitedAt });
    publishContainerEvent(this.ctx, container, 'die', { exitCode: String(exitCode) });
    publishVolumeMounts(this.ctx.events, container, 'unmount');
    void this.ctx.volumes
      .release(volumeNames(container), container.id)
      .catch((err: Error) =>
        this.ctx.log.warn('volume not unmounted', { container: container.id, error: err.message }),
      );
    // The waiters need not wait for it; a start or removal asked meanwhile does.
    this.tearDownTask(container);
    // The shim's logger, if any, exits with the task's deletion, its last line written.
    io?.closeWhenDrained(container.taskTeardown);
    container.networkTeardown = disconnectNetworks(this.ctx, container).catch((err: Error) =>
      this.ctx.log.warn('network endpoints not removed', { container: container.id, error: err.message }),
    );
    const restart = shouldRestart({
      policy: record.HostConfig.RestartPolicy,
      exitCode,
      manuallyStopped: record.ManuallyStopped,
      restartCount: record.RestartCount,
    });
    if (restart) this.scheduleRestart(container);
    // Set before any await since markExited: a wait that sees the exit answers once it is on disk.
    container.exitSaved = saveRecord(this.ctx, container).catch(() => undefined);
    await container.exitSaved;
    container.notifyExit(exitCode, '');
    if (!restart && record.HostConfig.AutoRemove) this.hooks.onAutoRemove(container);
  }

  private scheduleRestart(container: Container): void {
    const delay = nextRestartDelay(container.restartDelayMs, Date.now() - container.runStartedAt);
    container.restartDelayMs = delay;
    markRestarting(container.record.State);
    const timer = setTimeout(() => {
      container.cancelRestart = undefined;
      void container
        .exclusive(async () => {
          if (container.record.State.Status !== 'restarting') return;
          container.record.RestartCount++;
          await this.runTask(container);
        })
        .catch((err: Error) => {
          this.ctx.log.warn('restart failed', { id: container.id, error: err.message });
          markExited(container.record.State, {
            exitCode: container.record.State.ExitCode,
            error: err.message,
          });
          void saveRecord(this.ctx, container).catch(() => undefined);
          container.notifyExit(container.record.State.ExitCode, err.message);
        });
    }, delay);
    container.cancelRestart = () => clearTimeout(timer);
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

/** Whether the memory cgroup (v1) recorded an OOM kill. */
async function oomKilled(cgroupPath: string): Promise<boolean> {
  try {
    const control = await readFile(`/sys/fs/cgroup/memory${cgroupPath}/memory.oom_control`, 'latin1');
    return Number(/^oom_kill (\d+)$/m.exec(control)?.[1] ?? 0) > 0;
  } catch {
    return false;
  }
}

// Start, stop, restart, kill and pause of containers whose processes are containerd tasks behind
// runc shims, each under the container's lock. The start path (container-start.ts), what an exit
// leads to (container-exits.ts) and the task's deletion (task-teardown.ts) live beside it.
import { ConflictError, NotModifiedError } from '../../api/errors';
import { isExitedProcess } from '../../runtime/containerd/grpc-errors';
import { parseSignal } from '../../runtime/oci-spec/signals';
import type { Container } from './container';
import { ContainerExits } from './container-exits';
import type { ContainerIOFeed } from './container-io-feed';
import { type Exit, TaskStarter } from './container-start';
import { isRunning, markExited, markPaused } from './container-state';
import { type EngineContext, publishContainerEvent, saveRecord } from './engine-context';
import { deleteStaleTask, killScope, SIGKILL } from './task-teardown';

const defaultStopTimeoutSec = 10;

/** What the lifecycle calls back into, given at construction. */
export interface LifecycleHooks {
  /** Told of each new IO of a container. */
  ioFeed: ContainerIOFeed;
  /** Called when an AutoRemove container should go: it exited, or its start failed. */
  onAutoRemove: (container: Container) => void;
}

export class ContainerLifecycle {
  private readonly starter: TaskStarter;
  private readonly exits: ContainerExits;

  constructor(
    private readonly ctx: EngineContext,
    hooks: LifecycleHooks,
  ) {
    // A restart runs the task again, and a task may exit before its start is recorded.
    this.starter = new TaskStarter(ctx, {
      ...hooks,
      onEarlyExit: (c, exit) => void this.handleExit(c, exit),
    });
    this.exits = new ContainerExits(ctx, {
      runTask: (c) => this.starter.run(c),
      onAutoRemove: hooks.onAutoRemove,
    });
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
      await this.starter.run(container);
    });
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
      await this.ctx.client.tasks.kill(container.id, signal, killScope(this.ctx, signal));
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
      await this.starter.run(container);
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
        await this.ctx.client.tasks.kill(container.id, signal, killScope(this.ctx, signal));
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

  /** Kills and deletes whatever task containerd still has for the container (task-teardown.ts). */
  deleteStaleTask(container: Container, alongside?: () => Promise<void>): Promise<void> {
    return deleteStaleTask(this.ctx, container, alongside);
  }

  markOom(container: Container): void {
    this.exits.markOom(container);
  }

  /** The task's init process exited: record it, then restart, auto-remove, or leave it. */
  handleExit(container: Container, exit: Exit): Promise<void> {
    return this.exits.handle(container, exit);
  }

  /** Picks up a task that kept running while svcd was away. */
  reattach(container: Container, pid: number, paused: boolean): void {
    this.starter.reattach(container, pid, paused);
  }
}

// A container's task exited: the exit recorded (an OOM kill told apart), its volumes, task and
// endpoints released, then a restart scheduled by its policy, an AutoRemove, or nothing.
import { readFile } from 'node:fs/promises';
import { containerCgroupPath } from '../../runtime/oci-spec/build-spec';
import type { Container } from './container';
import { disconnectNetworks } from './container-endpoints';
import type { Exit } from './container-start';
import { isRunning, markExited, markRestarting } from './container-state';
import { type EngineContext, publishContainerEvent, saveRecord } from './engine-context';
import { nextRestartDelay, shouldRestart } from './restart-decision';
import { tearDownTask } from './task-teardown';
import { publishVolumeMounts, volumeNames } from './volume-events';

export interface ExitHooks {
  /** Runs the container's task again (a restart policy's restart). */
  runTask: (container: Container) => Promise<void>;
  /** Called when an AutoRemove container should go: it exited and is not restarted. */
  onAutoRemove: (container: Container) => void;
}

export class ContainerExits {
  constructor(
    private readonly ctx: EngineContext,
    private readonly hooks: ExitHooks,
  ) {}

  markOom(container: Container): void {
    if (!isRunning(container.record.State)) return;
    container.record.State.OOMKilled = true;
    publishContainerEvent(this.ctx, container, 'oom');
  }

  /** The task's init process exited: record it, then restart, auto-remove, or leave it. */
  async handle(container: Container, exit: Exit): Promise<void> {
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
    tearDownTask(this.ctx, container);
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
          await this.hooks.runTask(container);
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

// What svcd does for its containers when it starts and stops: records loaded, what a crash left
// swept, running tasks re-attached, missed exits recorded, restart policies applied at boot, and
// containerd's task events followed (each reconcile after a restart of containerd included).
import { refuseOtherDriversContainers } from '../../runtime/containerd/storage-driver';
import { containerCgroupPath } from '../../runtime/oci-spec/build-spec';
import { Container } from './container';
import type { ContainerLifecycle } from './container-lifecycle';
import type { ContainerReaper } from './container-reaper';
import { refreshSeccomp } from './container-spec';
import { isRunning, markDead, markExited } from './container-state';
import { type EngineContext, saveRecord } from './engine-context';
import { shouldStartAtBoot } from './restart-decision';
import { ShimKeeper } from './shim-keeper';
import { TaskEventMonitor } from './task-event-monitor';
import { sweepUnrecorded } from './unrecorded-containers';

export class ContainersRecovery {
  private readonly monitor: TaskEventMonitor;
  private readonly keeper: ShimKeeper;

  constructor(
    private readonly ctx: EngineContext,
    private readonly lifecycle: ContainerLifecycle,
    private readonly reaper: ContainerReaper,
  ) {
    this.keeper = new ShimKeeper(ctx);
    this.monitor = new TaskEventMonitor(
      ctx.client,
      {
        exit: (id, exitStatus, exitedAt) => {
          if (id === this.keeper.id) return this.keepShim();
          const c = ctx.registry.find(id);
          if (c) void lifecycle.handleExit(c, { exitStatus, exitedAt });
        },
        oom: (id) => {
          const c = ctx.registry.find(id);
          if (c) lifecycle.markOom(c);
        },
        reconcile: () => this.reconcile(),
      },
      ctx.log,
    );
  }

  /** Loads every record, re-attaches to running tasks, records missed exits, follows events. */
  async init(): Promise<void> {
    // What containerd holds of each: a container never started holds nothing (container-prepare.ts).
    const { client } = this.ctx;
    const made = await client.containers.list();
    const runtimes = new Set(made.map((c) => c.id));
    const records = await this.ctx.store.list();
    // Before anything is touched: containers of another driver are not this svcd's to sweep.
    refuseOtherDriversContainers(client.snapshotter, [
      ...made.map((c) => c.snapshotter),
      ...records.filter(({ value }) => !runtimes.has(value.Id)).map(({ value }) => value.Driver ?? ''),
    ]);
    const layers = new Set((await client.snapshots.list()).map((s) => s.name));
    for (const { value } of records) {
      const container = new Container(value);
      container.runtimeMade = runtimes.has(value.Id);
      container.layerMade = layers.has(value.SnapshotKey);
      if (value.State.Status === 'removing') {
        markDead(value.State, 'removal was interrupted');
        await saveRecord(this.ctx, container);
      }
      this.ctx.registry.add(container);
    }
    // Before anything starts: the namespaces and endpoints of containers the records do not
    // show running (the records of those whose task died meanwhile keep theirs for the exit).
    const runs = (id: string) => {
      const state = this.ctx.registry.find(id)?.record.State;
      return !!state && isRunning(state);
    };
    await this.ctx.networking
      .sweep(runs)
      .then((ids) => {
        if (ids.length) this.ctx.log.info('network namespaces swept', { containers: ids });
      })
      .catch((err: Error) => this.ctx.log.warn('network sweep failed', { error: err.message }));
    const { reaped, failed } = await this.reaper.reapRetired();
    if (reaped.length) this.ctx.log.info('interrupted removals finished', { containers: reaped });
    await sweepUnrecorded(this.ctx, new Set([...this.ctx.registry.all().map((c) => c.id), ...failed]))
      .then((ids) => {
        if (ids.length) this.ctx.log.info('interrupted creates undone', { containers: ids });
      })
      .catch((err: Error) => this.ctx.log.warn('interrupted creates not undone', { error: err.message }));
    await this.refreshSeccompFilters();
    await this.monitor.start();
    await this.ctx.rootfs
      .sweepInitLayers(new Set(this.ctx.registry.all().map((c) => c.record.InitSnapshotKey)))
      .catch((err: Error) => this.ctx.log.warn('init layer sweep failed', { error: err.message }));
    for (const c of this.ctx.registry.all()) {
      const r = c.record;
      const s = r.State;
      if (isRunning(s) || s.Status === 'restarting' || s.Status === 'dead') continue;
      if (s.StartedAt.startsWith('0001-')) continue;
      if (
        shouldStartAtBoot({
          policy: r.HostConfig.RestartPolicy,
          exitCode: s.ExitCode,
          manuallyStopped: r.ManuallyStopped,
          restartCount: r.RestartCount,
        })
      ) {
        this.lifecycle
          .start(c)
          .catch((err: Error) =>
            this.ctx.log.warn('restart at boot failed', { id: c.id, error: err.message }),
          );
      }
    }
  }

  private async refreshSeccompFilters(): Promise<void> {
    const changed: string[] = [];
    for (const { record, runtimeMade } of this.ctx.registry.all()) {
      // A dead container only awaits its removal; one never started gets its spec at its start.
      if (record.State.Status === 'dead' || !runtimeMade) continue;
      try {
        if (await refreshSeccomp(this.ctx, record)) changed.push(record.Id);
      } catch (err) {
        this.ctx.log.warn('seccomp filter not brought up to date', {
          id: record.Id,
          error: (err as Error).message,
        });
      }
    }
    if (changed.length) this.ctx.log.info('seccomp filters brought up to date', { containers: changed });
  }

  /** In the background: the first start need not wait for it, and would only spawn the shim itself. */
  private keepShim(): void {
    void this.keeper
      .ensure()
      .catch((err: Error) => this.ctx.log.warn('shim keeper not created', { error: err.message }));
  }

  /** Makes the records agree with containerd's tasks (after a restart of svcd or containerd). */
  private async reconcile(): Promise<void> {
    this.keepShim();
    // containerd lists init processes by their ID (the container ID) and leaves containerId empty.
    const tasks = new Map((await this.ctx.client.tasks.list()).map((t) => [t.containerId || t.id, t]));
    for (const c of this.ctx.registry.all()) {
      const s = c.record.State;
      const task = tasks.get(c.id);
      if (s.Status === 'restarting' && !c.cancelRestart) {
        // svcd died during a restart delay: the restart is still owed.
        markExited(s, { exitCode: s.ExitCode });
        c.record.ManuallyStopped = false;
        this.lifecycle.start(c).catch(() => undefined);
        continue;
      }
      if (!isRunning(s)) continue;
      if (task && (task.status === 'RUNNING' || task.status === 'PAUSED' || task.status === 'PAUSING')) {
        if (!c.io) this.lifecycle.reattach(c, task.pid, task.status !== 'RUNNING');
        continue;
      }
      await this.lifecycle.handleExit(c, {
        exitStatus: task ? task.exitStatus : 255,
        exitedAt: task?.exitedAt,
      });
    }
    // Not awaited: each waits for its container's operation in progress, events must not.
    void this.removeStrayTasks(new Set(tasks.keys()));
  }

  /**
   * Tasks of containers svcd does not record as running: a start cut short by a containerd that
   * died. If its Create or Start went through and the answer did not, containerd lists the task;
   * if runc was killed with the Create, containerd lost it but runc's state and cgroups stay.
   * Either belongs to nothing svcd reports: it goes, and so does a network namespace such a run
   * left (its teardown failed while containerd was away).
   */
  private async removeStrayTasks(listed: Set<string>): Promise<void> {
    const idle = (c: Container) =>
      !c.starting && !isRunning(c.record.State) && c.record.State.Status !== 'restarting';
    const { runcState, networking } = this.ctx;
    const left = (c: Container) =>
      listed.has(c.id) ||
      runcState.has(c.id, containerCgroupPath(c.id, c.record.HostConfig)) ||
      networking.hasNamespace(c.id);
    for (const c of this.ctx.registry.all()) {
      if (!idle(c) || !left(c)) continue;
      await c
        .exclusive(async () => {
          // Checked again: a start may have taken the container while this waited.
          if (!idle(c)) return;
          this.ctx.log.info('removing a task of a container not recorded as running', { id: c.id });
          await this.lifecycle.deleteStaleTask(c);
          await c.networkTeardown;
          if (networking.hasNamespace(c.id)) await networking.release(c.id);
        })
        .catch((err: Error) => this.ctx.log.warn('stray task not removed', { id: c.id, error: err.message }));
    }
  }

  async close(): Promise<void> {
    await this.reaper.drain();
    await this.monitor.stop();
    await this.keeper.release();
    for (const c of this.ctx.registry.all()) {
      c.stopHealth?.();
      c.cancelRestart?.();
      c.io?.close();
      // A live task keeps its rootfs; the others' are mounted again on demand (container-prepare.ts).
      if (!c.record.State.Running && c.layerMade) await this.ctx.rootfs.release(c.record.Rootfs);
    }
  }
}

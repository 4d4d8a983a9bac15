// The containers engine: what the containers router's backend needs, over containerd and runc.
// Creation, the lifecycle and the filesystem operations each live in their own module; this
// class holds them together and restores the engine's view when svcd starts.
import type { Readable } from 'node:stream';
import type {
  ContainerChange,
  ContainerInspect,
  ContainerListRequest,
  ContainerPathStat,
  ContainerTopResponse,
  ContainerPruneResponse,
  ContainerSummary,
  ContainerUpdateResponse,
  CommitOptions,
  ContainerWaitResponse,
  WaitCondition,
} from '../../api/container-summary-types';
import type {
  ContainerCreateRequest,
  ContainerCreateResponse,
  LegacyStart,
  Resources,
  RestartPolicy,
} from '../../api/container-types';
import { ConflictError, InvalidParameterError } from '../../api/errors';
import { validateContainerName } from '../../runtime/oci-spec/container-name';
import { Container } from './container';
import { containerCgroupPath } from '../../runtime/oci-spec/build-spec';

import { applyLegacyHostConfig, createContainer } from './container-create';
import { ContainerLifecycle } from './container-lifecycle';
import { ContainerReaper } from './container-reaper';
import type { ContainerIOFeed } from './container-io-feed';
import type { ContainerLogs } from './container-logs';
import { listContainers } from './container-list';
import { ContainerArchive, exportRootfs } from './container-archive';
import { processesOf, psTop } from './container-top';
import { containerSpec, refreshSeccomp, specNeedsStart } from './container-spec';
import { isRunning, markDead, markExited, markRemoving } from './container-state';
import { updateResources } from './container-update';
import { sweepUnrecorded } from './unrecorded-containers';
import { inspectView, type Sizes } from './container-view';
import { type EngineContext, publishContainerEvent, saveRecord } from './engine-context';
import { shouldStartAtBoot } from './restart-decision';
import { ShimKeeper } from './shim-keeper';
import { TaskEventMonitor } from './task-event-monitor';
import { checkFilterKeys, labelMatches } from '../../lib/filters';
import type { Filters } from '../../api/filters';
import { connectOne, disconnectOne, refreshHosts } from './container-endpoints';
import { removeLink } from './container-links';
import { volumeNames } from './volume-events';
import type { EndpointSettings } from '../../api/container-types';

export interface ContainersServiceDeps {
  context: EngineContext;
  ioFeed: ContainerIOFeed;
  logs: ContainerLogs;
  /** The exec instances of a container not yet finished, for inspect's ExecIDs. */
  execIdsOf: (containerId: string) => string[];
  /** Commits a container's layer as an image (the image store's side of POST /commit). */
  commit: (container: Container, opts: CommitOptions) => Promise<string>;
}

export class ContainersService {
  private readonly ctx: EngineContext;
  private readonly lifecycle: ContainerLifecycle;
  private readonly logs: ContainerLogs;
  private readonly execIdsOf: (containerId: string) => string[];
  private readonly monitor: TaskEventMonitor;
  private readonly keeper: ShimKeeper;
  private readonly reaper: ContainerReaper;
  private readonly commitImage: ContainersServiceDeps['commit'];

  constructor(deps: ContainersServiceDeps) {
    this.ctx = deps.context;
    this.logs = deps.logs;
    this.execIdsOf = deps.execIdsOf;
    this.commitImage = deps.commit;
    this.keeper = new ShimKeeper(this.ctx);
    this.lifecycle = new ContainerLifecycle(this.ctx, {
      ioFeed: deps.ioFeed,
      onAutoRemove: (c) => void this.remove(c.id, { force: false, volumes: true }).catch(() => undefined),
      beforeStart: async (c) => {
        if (specNeedsStart(c.record.HostConfig)) {
          await this.ctx.client.containers.update(c.id, { spec: containerSpec(this.ctx, c.record, true) });
        }
      },
    });
    this.reaper = new ContainerReaper(this.ctx, (c, alongside) =>
      this.lifecycle.deleteStaleTask(c, alongside),
    );
    this.monitor = new TaskEventMonitor(
      this.ctx.client,
      {
        exit: (id, exitStatus, exitedAt) => {
          if (id === this.keeper.id) return this.keepShim();
          const c = this.ctx.registry.find(id);
          if (c) void this.lifecycle.handleExit(c, { exitStatus, exitedAt });
        },
        oom: (id) => {
          const c = this.ctx.registry.find(id);
          if (c) this.lifecycle.markOom(c);
        },
        reconcile: () => this.reconcile(),
      },
      this.ctx.log,
    );
  }

  /** Loads every record, re-attaches to running tasks, records missed exits, follows events. */
  async init(): Promise<void> {
    for (const { value } of await this.ctx.store.list()) {
      const container = new Container(value);
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
    for (const { record } of this.ctx.registry.all()) {
      // A dead container only awaits its removal.
      if (record.State.Status === 'dead') continue;
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
      // A live task keeps its rootfs; the others' are mounted again on demand (ensureMounted).
      if (!c.record.State.Running) await this.ctx.rootfs.release(c.record.Rootfs);
    }
  }

  get(ref: string): Container {
    return this.ctx.registry.get(ref);
  }

  create(req: ContainerCreateRequest): Promise<ContainerCreateResponse> {
    return createContainer(this.ctx, req);
  }

  async start(ref: string, legacy?: LegacyStart): Promise<void> {
    const container = this.get(ref);
    if (legacy && !isRunning(container.record.State)) {
      await container.exclusive(() => applyLegacyHostConfig(this.ctx, container, legacy));
    }
    await this.lifecycle.start(container);
  }

  stop(ref: string, timeoutSec?: number): Promise<void> {
    return this.lifecycle.stop(this.get(ref), timeoutSec);
  }

  restart(ref: string, timeoutSec?: number): Promise<void> {
    return this.lifecycle.restart(this.get(ref), timeoutSec);
  }

  kill(ref: string, signal?: string): Promise<void> {
    return this.lifecycle.kill(this.get(ref), signal);
  }

  pause(ref: string): Promise<void> {
    return this.lifecycle.pause(this.get(ref));
  }

  unpause(ref: string): Promise<void> {
    return this.lifecycle.unpause(this.get(ref));
  }

  /**
   * Registers the wait at once (so a start right after cannot be missed) and returns the
   * promise of its result.
   */
  async wait(
    ref: string,
    condition: WaitCondition = 'not-running',
  ): Promise<{ result: Promise<ContainerWaitResponse> }> {
    return { result: this.waitFor(this.get(ref), condition) };
  }

  private waitFor(container: Container, condition: WaitCondition): Promise<ContainerWaitResponse> {
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

  async rename(ref: string, newName: string): Promise<void> {
    const container = this.get(ref);
    if (!newName) throw new InvalidParameterError('Neither old nor new names may be empty');
    const name = `/${validateContainerName(newName)}`;
    await container.exclusive(async () => {
      const old = container.name;
      if (name === old)
        throw new InvalidParameterError('Renaming a container with the same name as its current name');
      this.ctx.registry.reserveName(name, container.id);
      this.ctx.registry.releaseName(old, container.id);
      container.record.Name = name;
      await saveRecord(this.ctx, container);
      publishContainerEvent(this.ctx, container, 'rename', { oldName: old });
    });
  }

  async update(
    ref: string,
    body: Resources & { RestartPolicy?: RestartPolicy | null },
  ): Promise<ContainerUpdateResponse> {
    const container = this.get(ref);
    return container.exclusive(async () => {
      const warnings = await updateResources(this.ctx, container, body);
      publishContainerEvent(this.ctx, container, 'update');
      return { Warnings: warnings };
    });
  }

  async remove(ref: string, opts: { force: boolean; volumes: boolean; link?: boolean }): Promise<void> {
    if (opts.link) {
      const parent = removeLink(this.ctx, ref);
      await parent.exclusive(async () => {
        await saveRecord(this.ctx, parent);
        await refreshHosts(this.ctx, parent);
      });
      return;
    }
    const container = this.get(ref);
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
    const container = this.get(ref);
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

  private running(ref: string): Container {
    const container = this.get(ref);
    if (!isRunning(container.record.State))
      throw new ConflictError(`Container ${container.id} is not running`);
    return container;
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
    const container = this.get(ref);
    return this.ctx.rootfs.changes(container.id, container.record.InitSnapshotKey);
  }

  async export(ref: string): Promise<Readable> {
    const container = this.get(ref);
    await this.ctx.rootfs.ensureMounted(container.id, container.record.Rootfs);
    publishContainerEvent(this.ctx, container, 'export');
    return exportRootfs(container.record);
  }

  async resize(ref: string, height: number, width: number): Promise<void> {
    const container = this.running(ref);
    await this.ctx.client.tasks.resizePty(container.id, width, height);
    publishContainerEvent(this.ctx, container, 'resize', { height: String(height), width: String(width) });
  }

  /**
   * `work` on the container's files, with its root filesystem and, as dockerd does for a container
   * that does not run (a volume browser's, never started), its mount-type volumes mounted; those
   * stay mounted until `work` says it is done (a tar read out is done when its stream closes).
   */
  private async withArchive<T>(
    container: Container,
    work: (archive: ContainerArchive, done: () => void) => Promise<T>,
  ): Promise<T> {
    await this.ctx.rootfs.ensureMounted(container.id, container.record.Rootfs);
    const volumes = volumeNames(container);
    await this.ctx.volumes.lend(volumes);
    let given = false;
    const done = () => {
      if (given) return;
      given = true;
      void this.ctx.volumes
        .giveBack(volumes)
        .catch((err: Error) =>
          this.ctx.log.warn('volume not unmounted', { container: container.id, error: err.message }),
        );
    };
    try {
      return await work(new ContainerArchive(container.record), done);
    } catch (err) {
      done();
      throw err;
    }
  }

  async archiveStat(ref: string, path: string): Promise<ContainerPathStat> {
    return this.withArchive(this.get(ref), (a, done) => a.stat(path).finally(done));
  }

  /** A tar of the path; `copy` is the event of the pre-1.20 copy endpoint, as Docker names it. */
  async archiveGet(
    ref: string,
    path: string,
    event: 'archive-path' | 'copy' = 'archive-path',
  ): Promise<{ stat: ContainerPathStat; archive: Readable }> {
    const container = this.get(ref);
    const got = await this.withArchive(container, async (a, done) => {
      const out = await a.get(path);
      out.archive.once('close', done);
      return out;
    });
    publishContainerEvent(this.ctx, container, event);
    return got;
  }

  async archivePut(
    ref: string,
    path: string,
    body: Readable,
    opts: { noOverwriteDirNonDir: boolean; copyUIDGID: boolean },
  ): Promise<void> {
    const container = this.get(ref);
    await this.withArchive(container, (a, done) => a.put(path, body, opts).finally(done));
    publishContainerEvent(this.ctx, container, 'extract-to-dir');
  }

  async commit(req: CommitOptions & { container: string }): Promise<{ Id: string }> {
    const container = this.get(req.container);
    // As dockerd: a running container is paused (and shown paused) while its changes are read.
    const pause = req.pause && container.record.State.Status === 'running';
    if (pause) await this.lifecycle.pause(container);
    try {
      const id = await this.commitImage(container, req);
      publishContainerEvent(this.ctx, container, 'commit', {
        comment: req.comment ?? '',
        imageID: id,
        imageRef: req.repo ? `${req.repo}:${req.tag || 'latest'}` : '',
      });
      return { Id: id };
    } finally {
      if (pause) await this.lifecycle.unpause(container).catch(() => undefined);
    }
  }

  async connectNetwork(network: string, ref: string, settings: EndpointSettings | null): Promise<void> {
    const container = this.get(ref);
    await container.exclusive(async () => {
      await connectOne(this.ctx, container, network, settings);
      await saveRecord(this.ctx, container);
    });
  }

  async disconnectNetwork(network: string, ref: string, _force: boolean): Promise<void> {
    const container = this.get(ref);
    await container.exclusive(async () => {
      await disconnectOne(this.ctx, container, network);
      await saveRecord(this.ctx, container);
    });
  }
}

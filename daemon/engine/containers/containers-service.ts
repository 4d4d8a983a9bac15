// The containers engine: what the containers router's backend needs, over containerd and runc.
// Each part lives in its own module (creation, the lifecycle, removal, the read side, file
// access, what svcd does at start and stop); this class holds them together.
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
  EndpointSettings,
  LegacyStart,
  Resources,
  RestartPolicy,
} from '../../api/container-types';
import { InvalidParameterError } from '../../api/errors';
import type { Filters } from '../../api/filters';
import { validateContainerName } from '../../runtime/oci-spec/container-name';
import type { Container } from './container';
import { applyLegacyHostConfig, createContainer } from './container-create';
import { connectOne, disconnectOne } from './container-endpoints';
import { ContainerFileAccess } from './container-file-access';
import type { ContainerIOFeed } from './container-io-feed';
import { ContainerLifecycle } from './container-lifecycle';
import { prepareRootfs } from './container-prepare';
import type { ContainerLogs } from './container-logs';
import { ContainerReaper } from './container-reaper';
import { ContainerQueries } from './container-queries';
import { ContainerRemoval, type RemoveOptions } from './container-removal';
import { isRunning } from './container-state';
import type { Sizes } from './container-view';
import { updateResources } from './container-update';
import { ContainersRecovery } from './containers-recovery';
import { type EngineContext, publishContainerEvent, saveRecord } from './engine-context';

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
  private readonly recovery: ContainersRecovery;
  private readonly removal: ContainerRemoval;
  private readonly queries: ContainerQueries;
  private readonly files: ContainerFileAccess;
  private readonly commitImage: ContainersServiceDeps['commit'];

  constructor(deps: ContainersServiceDeps) {
    this.ctx = deps.context;
    this.commitImage = deps.commit;
    this.lifecycle = new ContainerLifecycle(this.ctx, {
      ioFeed: deps.ioFeed,
      onAutoRemove: (c) => void this.remove(c.id, { force: false, volumes: true }).catch(() => undefined),
    });
    const reaper = new ContainerReaper(this.ctx, (c, alongside) =>
      this.lifecycle.deleteStaleTask(c, alongside),
    );
    this.recovery = new ContainersRecovery(this.ctx, this.lifecycle, reaper);
    this.removal = new ContainerRemoval(this.ctx, this.lifecycle, deps.logs, reaper);
    this.queries = new ContainerQueries(this.ctx, deps.logs, deps.execIdsOf);
    this.files = new ContainerFileAccess(this.ctx);
  }

  /** Loads every record, re-attaches to running tasks, records missed exits, follows events. */
  init(): Promise<void> {
    return this.recovery.init();
  }

  close(): Promise<void> {
    return this.recovery.close();
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
    return { result: this.queries.waitFor(this.get(ref), condition) };
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

  remove(ref: string, opts: RemoveOptions): Promise<void> {
    return this.removal.remove(ref, opts);
  }

  prune(filters: Filters): Promise<ContainerPruneResponse> {
    return this.removal.prune(filters);
  }

  sizes(container: Container): Promise<Sizes> {
    return this.queries.sizes(container);
  }

  inspect(ref: string, size: boolean): Promise<ContainerInspect> {
    return this.queries.inspect(ref, size);
  }

  list(opts: ContainerListRequest): Promise<ContainerSummary[]> {
    return this.queries.list(opts);
  }

  top(ref: string, psArgs: string): Promise<ContainerTopResponse> {
    return this.queries.top(ref, psArgs);
  }

  changes(ref: string): Promise<ContainerChange[]> {
    return this.queries.changes(ref);
  }

  async export(ref: string): Promise<Readable> {
    return this.files.export(this.get(ref));
  }

  async resize(ref: string, height: number, width: number): Promise<void> {
    const container = this.queries.running(ref);
    await this.ctx.client.tasks.resizePty(container.id, width, height);
    publishContainerEvent(this.ctx, container, 'resize', { height: String(height), width: String(width) });
  }

  async archiveStat(ref: string, path: string): Promise<ContainerPathStat> {
    return this.files.stat(this.get(ref), path);
  }

  /** A tar of the path; `copy` is the event of the pre-1.20 copy endpoint, as Docker names it. */
  async archiveGet(
    ref: string,
    path: string,
    event: 'archive-path' | 'copy' = 'archive-path',
  ): Promise<{ stat: ContainerPathStat; archive: Readable }> {
    return this.files.get(this.get(ref), path, event);
  }

  async archivePut(
    ref: string,
    path: string,
    body: Readable,
    opts: { noOverwriteDirNonDir: boolean; copyUIDGID: boolean },
  ): Promise<void> {
    return this.files.put(this.get(ref), path, body, opts);
  }

  async commit(req: CommitOptions & { container: string }): Promise<{ Id: string }> {
    const container = this.get(req.container);
    // As dockerd: a running container is paused (and shown paused) while its changes are read.
    const pause = req.pause && container.record.State.Status === 'running';
    await prepareRootfs(this.ctx, container);
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

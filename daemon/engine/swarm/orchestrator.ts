// Makes the tasks and their containers agree with the services: one pass at a time, woken by
// the task containers' events, by writes to the cluster and by the timers of restart and
// update delays (never a busy poll). Each pass observes the containers, replaces what died as
// the restart policy says, rolls updates forward by batches, scales, and drops old history.
import type { Logger } from '../../lib/logger';
import type { ContainerInspect } from '../../api/container-summary-types';
import type { ServiceSpec, SwarmNode, SwarmService, SwarmTask, TaskState } from '../../api/swarm-types';
import type { Cluster } from './cluster';
import type { ClusterState } from './cluster-state';
import { constraintsMet, nodeUnavailable, unmetConstraints } from './placement';
import { modeOf, restartPolicyOf, updateConfigOf } from './service-spec';
import { newObjectId, swarmTimestamp } from './swarm-ids';
import type { IngressProxy, IngressTable } from './ingress-proxy';
import type { TaskFiles } from './task-files';
import { usesVip, type VipPort, type VipTable } from './service-vips';
import { taskContainerBody, taskContainerName, type TaskContainerPort } from './task-containers';

const terminal = new Set<TaskState>(['complete', 'shutdown', 'failed', 'rejected', 'orphaned', 'remove']);
const active = new Set<TaskState>(['preparing', 'ready', 'starting', 'running']);

export const isTerminal = (t: SwarmTask) => terminal.has(t.Status.State);

export interface OrchestratorDeps {
  cluster: Cluster;
  containers: TaskContainerPort;
  files: TaskFiles;
  /** The name of a local network by ID, for the task container to join; undefined when gone. */
  networkName: (id: string) => string | undefined;
  ingress: IngressProxy;
  vips: Pick<VipPort, 'route'>;
  log: Logger;
}

type Slot = { key: string; slot?: number; nodeId?: string };

export class Orchestrator {
  private passing = false;
  private again = false;
  private closed = false;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** The address of each running task's container, as the ingress forwards to it. */
  private readonly addresses = new Map<string, string>();
  /** Each running task's address on each of its networks, by network ID (its VIPs' backends). */
  private readonly networkAddresses = new Map<string, Map<string, string>>();
  /** When each service's last update batch started (its Delay counts from there). */
  private readonly lastBatch = new Map<string, number>();
  private unwatch?: () => void;
  /** Settles once the pass under way (if any) and those it asked for are done. */
  private idle: Promise<void> = Promise.resolve();
  private settle?: () => void;

  constructor(private readonly deps: OrchestratorDeps) {}

  start(): void {
    this.unwatch = this.deps.containers.watch(() => this.wake());
    this.wake();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unwatch?.();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await this.idle;
    await this.deps.ingress.close();
  }

  wake(): void {
    if (this.closed) return;
    if (this.passing) {
      this.again = true;
      return;
    }
    this.passing = true;
    this.idle = new Promise((resolve) => (this.settle = resolve));
    void this.loop();
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      if (!this.deps.cluster.peek() || this.deps.cluster.locked) break;
      await this.deps.cluster
        .write((state) => this.pass(state), false)
        .catch((err: Error) => {
          this.deps.log.warn('swarm reconcile pass failed', { error: err.message });
        });
    } while (this.again && !this.closed);
    this.passing = false;
    this.settle?.();
  }

  private later(key: string, ms: number): void {
    if (this.timers.has(key) || this.closed) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(key);
        this.wake();
      },
      Math.max(ms, 10),
    );
    timer.unref();
    this.timers.set(key, timer);
  }

  private setStatus(
    state: ClusterState,
    task: SwarmTask,
    to: TaskState,
    message: string,
    err?: string,
  ): void {
    task.Status = { ...task.Status, State: to, Message: message, Timestamp: swarmTimestamp(), Err: err };
    if (err === undefined) delete task.Status.Err;
    this.deps.cluster.touch(state, task);
  }

  private async pass(state: ClusterState): Promise<void> {
    const node = state.nodes[0];
    await this.adoptOnce(state);
    await this.observe(state);
    for (const task of state.tasks.filter((t) => !state.services.some((s) => s.ID === t.ServiceID)))
      await this.dropTask(state, task);
    for (const service of state.services) await this.reconcileService(state, service, node);
    await this.pruneHistory(state);
    await this.deps.ingress.sync(this.ingressTable(state));
    await this.deps.vips.route(this.vipTable(state));
  }

  private vipTable(state: ClusterState): VipTable {
    return state.services.flatMap((service) =>
      (service.Endpoint.VirtualIPs ?? []).map((v) => ({
        networkId: v.NetworkID,
        vip: v.Addr.split('/')[0],
        backends: state.tasks.flatMap((t) => {
          const ip =
            t.ServiceID === service.ID && t.Status.State === 'running'
              ? this.networkAddresses.get(t.ID)?.get(v.NetworkID)
              : undefined;
          return ip ? [ip] : [];
        }),
      })),
    );
  }

  private ingressTable(state: ClusterState): IngressTable {
    const table: IngressTable = new Map();
    for (const service of state.services) {
      const running = state.tasks.filter((t) => t.ServiceID === service.ID && t.Status.State === 'running');
      for (const p of service.Endpoint.Ports ?? []) {
        if (p.PublishMode !== 'ingress' || (p.Protocol ?? 'tcp') !== 'tcp' || !p.PublishedPort) continue;
        const backends = running.flatMap((t) => {
          const ip = this.addresses.get(t.ID);
          return ip ? [`${ip}:${p.TargetPort}`] : [];
        });
        table.set(p.PublishedPort, backends);
      }
    }
    return table;
  }

  private remember(task: SwarmTask, info: ContainerInspect): void {
    const settings = info.NetworkSettings;
    const ip =
      settings.IPAddress || Object.values(settings.Networks ?? {}).find((n) => n?.IPAddress)?.IPAddress;
    if (ip) this.addresses.set(task.ID, ip);
    const byNetwork = new Map<string, string>();
    for (const networkId of (task.Spec.Networks ?? []).map((n) => n.Target)) {
      const name = this.deps.networkName(networkId);
      const at = name ? settings.Networks?.[name]?.IPAddress : undefined;
      if (at) byNetwork.set(networkId, at);
    }
    this.networkAddresses.set(task.ID, byNetwork);
  }

  private forget(taskId: string): void {
    this.addresses.delete(taskId);
    this.networkAddresses.delete(taskId);
  }

  private adopted = false;

  /**
   * Once per start: containers of tasks the state does not hold (made just before a kill -9)
   * are removed; a task whose container was made but not recorded takes it back.
   */
  private async adoptOnce(state: ClusterState): Promise<void> {
    if (this.adopted) return;
    this.adopted = true;
    for (const { id, taskId } of await this.deps.containers.taskContainers()) {
      const task = state.tasks.find((t) => t.ID === taskId);
      if (task && !task.Status.ContainerStatus?.ContainerID) {
        task.Status.ContainerStatus = { ContainerID: id, PID: 0, ExitCode: 0 };
        this.setStatus(state, task, 'starting', 'starting');
        await this.deps.containers.start(id).catch(() => undefined);
      } else if (!task || task.Status.ContainerStatus?.ContainerID !== id) {
        this.deps.log.info('removing a task container the swarm does not know', { id, task: taskId });
        await this.deps.containers.remove(id).catch(() => undefined);
      }
    }
  }

  /** Each task with a container follows it: running, exited (complete or failed), gone. */
  private async observe(state: ClusterState): Promise<void> {
    for (const task of state.tasks) {
      const id = task.Status.ContainerStatus?.ContainerID;
      if (!id || !active.has(task.Status.State)) continue;
      const info = await this.deps.containers.inspect(id);
      if (!info) {
        this.setStatus(state, task, 'orphaned', 'task container was removed', 'task container was removed');
        continue;
      }
      const s = info.State;
      task.Status.ContainerStatus = { ContainerID: id, PID: s.Pid, ExitCode: s.ExitCode };
      if (s.Running) {
        this.remember(task, info);
        if (task.Status.State !== 'running') this.setStatus(state, task, 'running', 'started');
        continue;
      }
      this.forget(task.ID);
      if (s.Status === 'created') continue;
      if (task.DesiredState === 'shutdown') this.setStatus(state, task, 'shutdown', 'shutdown');
      else if (s.ExitCode === 0) this.setStatus(state, task, 'complete', 'finished');
      else
        this.setStatus(
          state,
          task,
          'failed',
          'task: non-zero exit (' + s.ExitCode + ')',
          `task: non-zero exit (${s.ExitCode})`,
        );
    }
  }

  private slotsOf(service: SwarmService, node: SwarmNode): Slot[] {
    const mode = modeOf(service.Spec);
    if (mode === 'global' || mode === 'global-job') return [{ key: node.ID, nodeId: node.ID }];
    if (mode === 'replicated') {
      const n = service.Spec.Mode?.Replicated?.Replicas ?? 1;
      return Array.from({ length: n }, (_, i) => ({ key: String(i + 1), slot: i + 1 }));
    }
    return [];
  }

  private tasksOf(state: ClusterState, service: SwarmService): SwarmTask[] {
    return state.tasks.filter((t) => t.ServiceID === service.ID);
  }

  private async reconcileService(state: ClusterState, service: SwarmService, node: SwarmNode): Promise<void> {
    const mode = modeOf(service.Spec);
    const tasks = this.tasksOf(state, service);
    if (mode === 'replicated-job') return this.reconcileJob(state, service, node, tasks);
    const slots = this.slotsOf(service, node);
    const keyOf = (t: SwarmTask) => (t.Slot ? String(t.Slot) : (t.NodeID ?? ''));
    // Scaled down: the slots beyond the count go, containers and all.
    for (const t of tasks.filter((t) => !slots.some((s) => s.key === keyOf(t))))
      await this.dropTask(state, t);
    const outdated: SwarmTask[] = [];
    for (const slot of slots) {
      const mine = tasks.filter((t) => keyOf(t) === slot.key && t.DesiredState === 'running');
      const current = mine[mine.length - 1];
      if (!current) {
        const history = tasks.filter((t) => keyOf(t) === slot.key);
        const last = history[history.length - 1];
        if (mode === 'global-job' && last?.Status.State === 'complete' && this.sameIteration(service, last))
          continue;
        // A task still stopping (stop-first update, drain) holds its slot until it has.
        if (!last || (isTerminal(last) && this.restartDue(state, service, last, history))) {
          await this.runTask(state, service, node, slot);
        }
        continue;
      }
      // start-first: the older tasks of a slot stop once its newest runs.
      if (current.Status.State === 'running')
        for (const older of mine.slice(0, -1)) this.shutdown(state, older);
      if (isTerminal(current)) {
        if (this.failedDuringUpdate(state, service, current)) return;
        current.DesiredState = 'shutdown';
        this.deps.cluster.touch(state, current);
        if (
          this.restartDue(
            state,
            service,
            current,
            tasks.filter((t) => keyOf(t) === slot.key),
          )
        )
          await this.runTask(state, service, node, slot);
        continue;
      }
      if (current.Status.State === 'pending' || current.Status.State === 'new') {
        await this.place(state, service, node, current);
        continue;
      }
      if (node.Spec.Availability === 'drain') {
        this.shutdown(state, current);
        continue;
      }
      if (mine.length === 1 && this.isOutdated(service, current)) outdated.push(current);
    }
    await this.rollUpdate(state, service, node, outdated, tasks);
  }

  private sameIteration(service: SwarmService, task: SwarmTask): boolean {
    return (task.JobIteration?.Index ?? 0) === (service.JobStatus?.JobIteration.Index ?? 0);
  }

  private async reconcileJob(
    state: ClusterState,
    service: SwarmService,
    node: SwarmNode,
    tasks: SwarmTask[],
  ): Promise<void> {
    const job = service.Spec.Mode?.ReplicatedJob ?? {};
    const maxConcurrent = job.MaxConcurrent ?? 1;
    const total = job.TotalCompletions ?? maxConcurrent;
    const iteration = tasks.filter((t) => this.sameIteration(service, t));
    for (const old of tasks.filter((t) => !this.sameIteration(service, t) && !isTerminal(t)))
      this.shutdown(state, old);
    const completed = iteration.filter((t) => t.Status.State === 'complete').length;
    let live = iteration.filter((t) => t.DesiredState === 'running' && !isTerminal(t)).length;
    for (const t of iteration.filter(
      (t) => t.DesiredState === 'running' && (t.Status.State === 'pending' || t.Status.State === 'new'),
    ))
      await this.place(state, service, node, t);
    // A failed run is started again in its slot, as the restart policy allows.
    for (const failed of iteration.filter(
      (t) => t.DesiredState === 'running' && isTerminal(t) && t.Status.State !== 'complete',
    )) {
      failed.DesiredState = 'shutdown';
      this.deps.cluster.touch(state, failed);
      const history = iteration.filter((t) => t.Slot === failed.Slot);
      if (this.restartDue(state, service, failed, history)) {
        await this.runTask(state, service, node, { key: String(failed.Slot), slot: failed.Slot });
        live++;
      }
    }
    let nextSlot = Math.max(0, ...iteration.map((t) => t.Slot ?? 0)) + 1;
    while (live < maxConcurrent && completed + live < total) {
      await this.runTask(state, service, node, { key: String(nextSlot), slot: nextSlot });
      nextSlot++;
      live++;
    }
  }

  private isOutdated(service: SwarmService, task: SwarmTask): boolean {
    return JSON.stringify(task.Spec) !== JSON.stringify(service.Spec.TaskTemplate);
  }

  /** A new task of the update failed: the update pauses, rolls back or goes on, as configured. */
  private failedDuringUpdate(state: ClusterState, service: SwarmService, task: SwarmTask): boolean {
    const status = service.UpdateStatus;
    if (!status || (status.State !== 'updating' && status.State !== 'rollback_started')) return false;
    if (this.isOutdated(service, task) || task.CreatedAt < (status.StartedAt ?? '')) return false;
    const rollingBack = status.State === 'rollback_started';
    const action = updateConfigOf(service.Spec, rollingBack).FailureAction;
    if (action === 'continue') return false;
    const why = `due to failure or early termination of task ${task.ID}`;
    if (action === 'rollback' && !rollingBack && service.PreviousSpec) {
      rollBack(state, service, `update rolled back ${why}`);
    } else {
      service.UpdateStatus = {
        ...status,
        State: rollingBack ? 'rollback_paused' : 'paused',
        Message: `${rollingBack ? 'rollback' : 'update'} paused ${why}`,
      };
    }
    this.deps.cluster.touch(state, service);
    this.deps.cluster.publish('service', 'update', service.ID, { name: service.Spec.Name ?? '' });
    this.again = true;
    return true;
  }

  private async rollUpdate(
    state: ClusterState,
    service: SwarmService,
    node: SwarmNode,
    outdated: SwarmTask[],
    tasks: SwarmTask[],
  ): Promise<void> {
    const status = service.UpdateStatus;
    const rollingBack = status?.State === 'rollback_started';
    if (status && (status.State === 'paused' || status.State === 'rollback_paused')) return;
    // A batch is done once its new tasks run and its old ones have stopped.
    const settling = tasks.some(
      (t) =>
        !isTerminal(t) &&
        (t.DesiredState === 'shutdown' || (t.Status.State !== 'running' && t.Status.State !== 'pending')),
    );
    if (!outdated.length) {
      if (!settling && (status?.State === 'updating' || rollingBack)) {
        service.UpdateStatus = {
          ...status,
          State: rollingBack ? 'rollback_completed' : 'completed',
          CompletedAt: swarmTimestamp(),
          Message: rollingBack ? 'rollback completed' : 'update completed',
        };
        this.deps.cluster.touch(state, service);
      }
      return;
    }
    if (settling) return;
    const config = updateConfigOf(service.Spec, rollingBack);
    const since = Date.now() - (this.lastBatch.get(service.ID) ?? 0);
    const delayMs = config.Delay / 1e6;
    if (since < delayMs) return this.later(`update:${service.ID}`, delayMs - since);
    this.lastBatch.set(service.ID, Date.now());
    const batch = config.Parallelism > 0 ? outdated.slice(0, config.Parallelism) : outdated;
    for (const old of batch) {
      const slot = { key: '', slot: old.Slot, nodeId: old.Slot ? undefined : old.NodeID };
      // stop-first: the slot gets its new task once the old one has stopped (next passes).
      if (config.Order === 'start-first') await this.runTask(state, service, node, slot);
      else this.shutdown(state, old);
    }
    if (outdated.length > batch.length) this.again = true;
  }

  /** The restart policy's verdict on a slot whose task ended; a later wake when it must wait. */
  private restartDue(
    state: ClusterState,
    service: SwarmService,
    last: SwarmTask,
    history: SwarmTask[],
  ): boolean {
    if (
      last.DesiredState === 'shutdown' &&
      last.Status.State === 'shutdown' &&
      this.isOutdated(service, last)
    )
      return true;
    const job = modeOf(service.Spec).endsWith('job');
    const policy = restartPolicyOf(service.Spec, job);
    if (policy.Condition === 'none') return false;
    if (policy.Condition === 'on-failure' && last.Status.State === 'complete') return false;
    if (policy.MaxAttempts > 0) {
      const windowStart = policy.Window > 0 ? Date.now() - policy.Window / 1e6 : 0;
      const restarts = history.filter((t) => Date.parse(t.CreatedAt) >= windowStart).length - 1;
      if (restarts >= policy.MaxAttempts) return false;
    }
    const wait = Date.parse(last.Status.Timestamp) + policy.Delay / 1e6 - Date.now();
    if (wait > 0) {
      this.later(`restart:${last.ID}`, wait);
      return false;
    }
    void state;
    return true;
  }

  /** A new task for the slot, placed and started at once when the node can take it. */
  private async runTask(
    state: ClusterState,
    service: SwarmService,
    node: SwarmNode,
    slot: Slot,
  ): Promise<void> {
    const task: SwarmTask = {
      ...this.deps.cluster.newMeta(state, newObjectId()),
      Labels: {},
      Spec: structuredClone(service.Spec.TaskTemplate ?? {}),
      ServiceID: service.ID,
      ...(slot.slot ? { Slot: slot.slot } : {}),
      NodeID: node.ID,
      Status: { Timestamp: swarmTimestamp(), State: 'new', Message: 'created', PortStatus: {} },
      DesiredState: 'running',
      ...(service.JobStatus ? { JobIteration: service.JobStatus.JobIteration } : {}),
    };
    state.tasks.push(task);
    await this.place(state, service, node, task);
  }

  private async place(
    state: ClusterState,
    service: SwarmService,
    node: SwarmNode,
    task: SwarmTask,
  ): Promise<void> {
    if (node.Spec.Availability !== 'active') {
      if (task.Status.Message !== nodeUnavailable) this.setStatus(state, task, 'pending', nodeUnavailable);
      return;
    }
    if (!constraintsMet(node, task.Spec.Placement?.Constraints)) {
      if (task.Status.Message !== unmetConstraints) this.setStatus(state, task, 'pending', unmetConstraints);
      return;
    }
    this.setStatus(state, task, 'preparing', 'preparing');
    // Recorded before the container exists, so a kill -9 in between never makes a second one.
    await this.deps.cluster.file.save(state);
    try {
      await this.deps.containers.ensureImage(
        task.Spec.ContainerSpec?.Image ?? '',
        state.registryAuth?.[service.ID]?.spec,
      );
      const files = await this.deps.files.prepare(state, task);
      const netId = task.Spec.Networks?.[0]?.Target;
      const netName = netId ? this.deps.networkName(netId) : undefined;
      // A vip service's name and aliases are its VIP's (the swarm's name lookup); a dnsrr
      // one's are every task's.
      const aliases = [
        `tasks.${service.Spec.Name}`,
        ...(usesVip(service) ? [] : [service.Spec.Name ?? '', ...(task.Spec.Networks?.[0]?.Aliases ?? [])]),
      ];
      const id = await this.deps.containers.create(
        taskContainerName(service, task),
        taskContainerBody({
          service,
          task,
          files,
          network: netName ? { name: netName, aliases } : undefined,
        }),
      );
      task.Status.ContainerStatus = { ContainerID: id, PID: 0, ExitCode: 0 };
      this.setStatus(state, task, 'starting', 'starting');
      await this.deps.cluster.file.save(state);
      await this.deps.containers.start(id);
      const info = await this.deps.containers.inspect(id);
      if (info?.State.Running) {
        this.remember(task, info);
        task.Status.ContainerStatus = { ContainerID: id, PID: info.State.Pid, ExitCode: 0 };
        task.Status.PortStatus = hostPorts(service, info);
        this.setStatus(state, task, 'running', 'started');
      }
    } catch (err) {
      const message = (err as Error).message;
      const started = !!task.Status.ContainerStatus?.ContainerID;
      this.setStatus(
        state,
        task,
        started ? 'failed' : 'rejected',
        started ? 'starting' : 'preparing',
        message,
      );
    }
  }

  /**
   * Asks the task to stop: its container is stopped in the background (its grace period can be
   * long) and the task is shut down once the container's exit is seen.
   */
  private shutdown(state: ClusterState, task: SwarmTask): void {
    task.DesiredState = 'shutdown';
    this.deps.cluster.touch(state, task);
    if (isTerminal(task)) return;
    const id = task.Status.ContainerStatus?.ContainerID;
    if (!id || !active.has(task.Status.State)) return this.setStatus(state, task, 'shutdown', 'shutdown');
    const grace = task.Spec.ContainerSpec?.StopGracePeriod;
    void this.deps.containers
      .stop(id, grace === undefined ? undefined : Math.ceil(grace / 1e9))
      .catch(() => undefined)
      .finally(() => this.wake());
  }

  /** A task removed for good: its container and files go with it. */
  private async dropTask(state: ClusterState, task: SwarmTask): Promise<void> {
    const id = task.Status.ContainerStatus?.ContainerID;
    if (id) await this.deps.containers.remove(id).catch(() => undefined);
    await this.deps.files.release(task.ID);
    this.forget(task.ID);
    state.tasks.splice(state.tasks.indexOf(task), 1);
  }

  /** Keeps the newest ended tasks of each slot, as many as TaskHistoryRetentionLimit says. */
  private async pruneHistory(state: ClusterState): Promise<void> {
    const limit = state.swarm.Spec.Orchestration?.TaskHistoryRetentionLimit ?? 5;
    const bySlot = new Map<string, SwarmTask[]>();
    for (const t of state.tasks) {
      const key = `${t.ServiceID}/${t.Slot ?? t.NodeID}`;
      bySlot.set(key, [...(bySlot.get(key) ?? []), t]);
    }
    for (const tasks of bySlot.values()) {
      const ended = tasks.filter((t) => isTerminal(t) && t.DesiredState !== 'running');
      const excess = tasks.length - Math.max(limit, tasks.length - ended.length);
      for (const t of ended.slice(0, Math.max(0, excess))) await this.dropTask(state, t);
    }
  }

  /** Stops and removes every task container (leave). */
  async removeAll(state: ClusterState): Promise<void> {
    for (const task of [...state.tasks]) await this.dropTask(state, task);
    await this.deps.ingress.close();
    await this.deps.vips.route([]);
  }
}

/** Host-mode ports as a task's PortStatus shows them (the port the engine bound). */
function hostPorts(service: SwarmService, info: ContainerInspect): SwarmTask['Status']['PortStatus'] {
  const host = (service.Endpoint.Ports ?? []).filter((p) => p.PublishMode === 'host');
  if (!host.length) return {};
  const bound = (info.NetworkSettings.Ports ?? {}) as Record<string, Array<{ HostPort: string }> | null>;
  return {
    Ports: host.map((p) => ({
      ...p,
      PublishedPort: Number(
        bound[`${p.TargetPort}/${p.Protocol ?? 'tcp'}`]?.[0]?.HostPort ?? p.PublishedPort ?? 0,
      ),
    })),
  };
}

/** Swaps the spec with the previous one (and their registry auths) and starts rolling back. */
export function rollBack(state: ClusterState, service: SwarmService, message: string): void {
  const auth = state.registryAuth?.[service.ID];
  if (auth) state.registryAuth![service.ID] = { spec: auth.previous, previous: auth.spec };
  const previous = service.PreviousSpec as ServiceSpec;
  service.PreviousSpec = service.Spec;
  service.Spec = previous;
  service.UpdateStatus = { State: 'rollback_started', StartedAt: swarmTimestamp(), Message: message };
}

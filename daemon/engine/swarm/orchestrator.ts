// Makes the tasks and their containers agree with the services: one pass at a time, woken by
// the task containers' events, by writes to the cluster and by the timers of restart and
// update delays (never a busy poll). Each pass observes the containers, has each service
// reconciled (service-reconciler.ts, with its update and job runners), drops old history and
// routes the published ports and VIPs to the running tasks. The task operations themselves
// (make, place and start, stop, remove) are here.
import type { Logger } from '../../lib/logger';
import type { SwarmService, SwarmTask, TaskState } from '../../api/swarm-types';
import type { Cluster } from './cluster';
import type { ClusterState } from './cluster-state';
import type { IngressProxy } from './ingress-proxy';
import { placementProblem } from './placement';
import { ServiceReconciler, type TaskOps } from './service-reconciler';
import { modeOf } from './service-spec';
import { usesVip, type VipPort } from './service-vips';
import { newObjectId, swarmTimestamp } from './swarm-ids';
import { taskContainerBody, taskContainerName, type TaskContainerPort } from './task-containers';
import { hostPorts, TaskEndpoints } from './task-endpoints';
import type { TaskFiles } from './task-files';
import { active, isTerminal, meantToRun, type Slot } from './task-states';
import { UpdateRunner } from './update-runner';

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

/** Swarmkit's status message of a task the scheduler has not placed (its Err says why). */
const pendingMessage = 'pending task scheduling';

export class Orchestrator implements TaskOps {
  private passing = false;
  private again = false;
  private closed = false;
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; due: number }>();
  private readonly endpoints: TaskEndpoints;
  private readonly updates: UpdateRunner;
  private readonly services: ServiceReconciler;
  private unwatch?: () => void;
  /** Settles once the pass under way (if any) and those it asked for are done. */
  private idle: Promise<void> = Promise.resolve();
  private settle?: () => void;

  constructor(private readonly deps: OrchestratorDeps) {
    this.endpoints = new TaskEndpoints(deps.networkName);
    this.updates = new UpdateRunner(deps.cluster, this);
    this.services = new ServiceReconciler(this, this.updates);
  }

  start(): void {
    this.unwatch = this.deps.containers.watch(() => this.wake());
    this.wake();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unwatch?.();
    for (const t of this.timers.values()) clearTimeout(t.timer);
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

  /** A pass in `ms` (or sooner, when another wait for the same key ends first). */
  later(key: string, ms: number): void {
    const due = Date.now() + Math.max(ms, 10);
    const existing = this.timers.get(key);
    if (this.closed || (existing && existing.due <= due)) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.wake();
    }, due - Date.now());
    timer.unref();
    this.timers.set(key, { timer, due });
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
    if (to === 'running') this.updates.running(task);
  }

  retire(state: ClusterState, task: SwarmTask): void {
    // A job's completed task stays desired complete, as swarmkit leaves it.
    if (
      task.DesiredState === 'shutdown' ||
      (task.DesiredState === 'complete' && task.Status.State === 'complete')
    )
      return;
    task.DesiredState = 'shutdown';
    this.deps.cluster.touch(state, task);
  }

  private async pass(state: ClusterState): Promise<void> {
    const [node] = state.nodes;
    await this.adoptOnce(state);
    await this.observe(state);
    for (const task of state.tasks.filter((t) => !state.services.some((s) => s.ID === t.ServiceID)))
      await this.dropTask(state, task);
    for (const service of state.services) await this.services.reconcile(state, service, node);
    await this.pruneHistory(state);
    await this.deps.ingress.sync(this.endpoints.ingressTable(state));
    await this.deps.vips.route(this.endpoints.vipTable(state));
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
        this.endpoints.remember(task, info);
        if (task.Status.State !== 'running') this.setStatus(state, task, 'running', 'started');
        continue;
      }
      this.endpoints.forget(task.ID);
      if (s.Status === 'created') continue;
      if (task.DesiredState === 'shutdown') this.setStatus(state, task, 'shutdown', 'shutdown');
      else if (s.ExitCode === 0) this.setStatus(state, task, 'complete', 'finished');
      // dockerd keeps the message of the state it left ("started") and says why in Err.
      else this.setStatus(state, task, 'failed', task.Status.Message, `task: non-zero exit (${s.ExitCode})`);
    }
  }

  /** A new task for the slot, placed and started at once when the node can take it. */
  async runTask(state: ClusterState, service: SwarmService, slot: Slot): Promise<void> {
    const task: SwarmTask = {
      ...this.deps.cluster.newMeta(state, newObjectId()),
      Labels: {},
      Spec: structuredClone(service.Spec.TaskTemplate ?? {}),
      ServiceID: service.ID,
      ...(slot.slot ? { Slot: slot.slot } : {}),
      NodeID: state.nodes[0].ID,
      Status: { Timestamp: swarmTimestamp(), State: 'new', Message: 'created', PortStatus: {} },
      // As swarmkit: a job's task is meant to complete.
      DesiredState: modeOf(service.Spec).endsWith('job') ? 'complete' : 'running',
      ...(service.JobStatus ? { JobIteration: service.JobStatus.JobIteration } : {}),
    };
    state.tasks.push(task);
    this.updates.created(service, task);
    await this.place(state, service, task);
  }

  async place(state: ClusterState, service: SwarmService, task: SwarmTask): Promise<void> {
    const problem = placementProblem(state, state.nodes[0], task);
    if (problem) {
      if (task.Status.Err !== problem) this.setStatus(state, task, 'pending', pendingMessage, problem);
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
      // A vip service's name and aliases are its VIP's (the swarm's name lookup); a dnsrr
      // one's are every task's.
      const networks = (task.Spec.Networks ?? []).flatMap((n) => {
        const name = this.deps.networkName(n.Target);
        const own = usesVip(service) ? [] : [service.Spec.Name ?? '', ...(n.Aliases ?? [])];
        return name ? [{ name, aliases: [`tasks.${service.Spec.Name}`, ...own] }] : [];
      });
      const id = await this.deps.containers.create(
        taskContainerName(service, task),
        taskContainerBody({ service, task, files, network: networks[0] }),
      );
      task.Status.ContainerStatus = { ContainerID: id, PID: 0, ExitCode: 0 };
      // The task's other networks are joined before it starts, as dockerd attaches them.
      for (const n of networks.slice(1)) await this.deps.containers.connect(id, n.name, n.aliases);
      this.setStatus(state, task, 'starting', 'starting');
      await this.deps.cluster.file.save(state);
      await this.deps.containers.start(id);
      const info = await this.deps.containers.inspect(id);
      if (info?.State.Running) {
        this.endpoints.remember(task, info);
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
  shutdown(state: ClusterState, task: SwarmTask): void {
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
  async dropTask(state: ClusterState, task: SwarmTask): Promise<void> {
    const id = task.Status.ContainerStatus?.ContainerID;
    if (id) await this.deps.containers.remove(id).catch(() => undefined);
    await this.deps.files.release(task.ID);
    this.endpoints.forget(task.ID);
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
      const ended = tasks.filter((t) => isTerminal(t) && !meantToRun(t));
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

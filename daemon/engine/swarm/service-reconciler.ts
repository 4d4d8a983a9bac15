// One service's tasks made to agree with its spec, slot by slot (a replicated service's
// numbered slots, a global one's node): a slot without a task gets one, an ended task is
// replaced as the restart policy says, a pending one is placed again, a drained node's tasks
// stop, scaling down removes slots, and out-of-date slots are handed to the update runner.
// Jobs have their own runner.
import type { SwarmNode, SwarmService, SwarmTask } from '../../api/swarm-types';
import type { ClusterState } from './cluster-state';
import { JobRunner } from './job-runner';
import { restartDue } from './restart-policy';
import { modeOf } from './service-spec';
import { isOutdated, isTerminal, meantToRun, slotKey, type Slot } from './task-states';
import type { UpdateOps, UpdateRunner } from './update-runner';

/** What the reconciler asks of the orchestrator. */
export interface TaskOps extends UpdateOps {
  /** Tries again to start a pending task. */
  place(state: ClusterState, service: SwarmService, task: SwarmTask): Promise<void>;
  /** Removes a task for good, with its container. */
  dropTask(state: ClusterState, task: SwarmTask): Promise<void>;
  /** Marks the task's desired state shutdown (its container has ended). */
  retire(state: ClusterState, task: SwarmTask): void;
}

export const sameIteration = (service: SwarmService, task: SwarmTask) =>
  (task.JobIteration?.Index ?? 0) === (service.JobStatus?.JobIteration.Index ?? 0);

function slotsOf(service: SwarmService, node: SwarmNode): Slot[] {
  const mode = modeOf(service.Spec);
  if (mode === 'global' || mode === 'global-job') return [{ key: node.ID, nodeId: node.ID }];
  const n = service.Spec.Mode?.Replicated?.Replicas ?? 1;
  return Array.from({ length: n }, (_, i) => ({ key: String(i + 1), slot: i + 1 }));
}

export class ServiceReconciler {
  private readonly jobs: JobRunner;

  constructor(
    private readonly ops: TaskOps,
    private readonly updates: UpdateRunner,
  ) {
    this.jobs = new JobRunner(ops);
  }

  async reconcile(state: ClusterState, service: SwarmService, node: SwarmNode): Promise<void> {
    const mode = modeOf(service.Spec);
    const tasksNow = () => state.tasks.filter((t) => t.ServiceID === service.ID);
    if (mode === 'replicated-job') return this.jobs.reconcile(state, service, node, tasksNow());
    this.updates.check(state, service, tasksNow());
    const slots = slotsOf(service, node);
    const keys = new Set(slots.map((s) => s.key));
    // Scaled down: the slots beyond the count go, containers and all.
    for (const t of tasksNow().filter((t) => !keys.has(slotKey(t)))) await this.ops.dropTask(state, t);
    const tasks = tasksNow();
    const global = mode === 'global' || mode === 'global-job';
    const drained = node.Spec.Availability === 'drain';
    const later = (key: string, ms: number) => this.ops.later(key, ms);
    const outdated: SwarmTask[] = [];
    for (const slot of slots) {
      const history = tasks.filter((t) => slotKey(t) === slot.key);
      const job = mode === 'global-job';
      // A job's update is a new run of it: the last run's task stops, and a new one starts.
      if (job)
        for (const old of history.filter((t) => meantToRun(t) && !sameIteration(service, t)))
          this.ops.shutdown(state, old);
      const mine = history.filter(meantToRun);
      const current = mine[mine.length - 1];
      if (!current) {
        const last = history[history.length - 1];
        if (job && last && !sameIteration(service, last)) {
          if (isTerminal(last) && !drained) await this.ops.runTask(state, service, slot);
          continue;
        }
        if (job && last?.Status.State === 'complete') continue;
        // A drained node runs no global task: swarmkit shuts them down and makes none.
        if (global && drained) continue;
        // A task still stopping (stop-first update, drain) holds its slot until it has.
        if (!last || (isTerminal(last) && restartDue(service, node, last, history, later)))
          await this.ops.runTask(state, service, slot);
        continue;
      }
      // start-first: the older tasks of a slot stop once its newest runs.
      if (current.Status.State === 'running')
        for (const older of mine.slice(0, -1)) this.ops.shutdown(state, older);
      if (isTerminal(current)) {
        this.ops.retire(state, current);
        if (!(global && drained) && restartDue(service, node, current, history, later))
          await this.ops.runTask(state, service, slot);
        continue;
      }
      const unplaced = current.Status.State === 'pending' || current.Status.State === 'new';
      if (drained && (global || !unplaced)) {
        this.ops.shutdown(state, current);
        continue;
      }
      if (unplaced) {
        await this.ops.place(state, service, current);
        continue;
      }
      if (!job && mine.length === 1 && isOutdated(service, current)) outdated.push(current);
    }
    await this.updates.roll(state, service, outdated, keys);
  }
}

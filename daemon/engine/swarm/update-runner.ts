// Rolling updates and rollbacks as swarmkit's updater runs them. A run replaces the service's
// out-of-date slots, Parallelism at a time (0: all), each worker resting Delay after its slot's
// new task runs, stop-first or start-first. A new task that ends before it runs, or within
// Monitor of starting, is a failure; once failures exceed MaxFailureRatio of the slots the
// run began with, FailureAction says what follows: pause, roll back (a rollback is never
// rolled back: it pauses) or continue. The run is done Monitor after its last slot.
//
// A run lives in memory, as swarmkit's updater does: after a restart the update goes on as a
// new run over the slots still out of date.
import type { ServiceSpec, SwarmService, SwarmTask, UpdateStatus } from '../../api/swarm-types';
import type { Cluster } from './cluster';
import type { ClusterState } from './cluster-state';
import { updateConfigOf } from './service-spec';
import { serviceUpdateAttributes, serviceView } from './swarm-events';
import { swarmTimestamp } from './swarm-ids';
import { isOutdated, isTerminal, slotKey, slotOf, type Slot } from './task-states';

/** What the runner asks of the orchestrator. */
export interface UpdateOps {
  /** A new task for the slot, started at once when the node can take it. */
  runTask(state: ClusterState, service: SwarmService, slot: Slot): Promise<void>;
  /** Asks the task to stop. */
  shutdown(state: ClusterState, task: SwarmTask): void;
  /** Another pass in `ms`. */
  later(key: string, ms: number): void;
}

interface Run {
  /** The UpdateStatus it runs (its state and start). */
  id: string;
  /** How many slots were out of date when it began: the failure ratio's denominator. */
  dirty: number;
  /** The slots being replaced, each with its new task once made. */
  inFlight: Map<string, string | undefined>;
  /** The new tasks it made, with when each was seen running (0: not yet). */
  started: Map<string, number>;
  failures: number;
  /** When each replaced slot was done: its worker rests Delay from then. */
  done: number[];
}

const inProgress = (s?: UpdateStatus) => s?.State === 'updating' || s?.State === 'rollback_started';
const runId = (s?: UpdateStatus) => `${s?.State} ${s?.StartedAt}`;
/** Ends that count against an update (a task it stopped itself does not). */
const failedEnds = new Set(['failed', 'complete', 'rejected', 'orphaned']);

export class UpdateRunner {
  private readonly runs = new Map<string, Run>();

  constructor(
    private readonly cluster: Cluster,
    private readonly ops: UpdateOps,
  ) {}

  private runOf(service: SwarmService): Run | undefined {
    const run = this.runs.get(service.ID);
    return run && run.id === runId(service.UpdateStatus) ? run : undefined;
  }

  /** A task was made: the run replacing its slot takes it as its own. */
  created(service: SwarmService, task: SwarmTask): void {
    const run = this.runOf(service);
    const key = slotKey(task);
    if (!run || !run.inFlight.has(key) || run.inFlight.get(key) || isOutdated(service, task)) return;
    run.inFlight.set(key, task.ID);
    run.started.set(task.ID, 0);
  }

  /** A task was seen running: its Monitor period starts. */
  running(task: SwarmTask): void {
    const run = this.runs.get(task.ServiceID);
    if (run?.started.get(task.ID) === 0) run.started.set(task.ID, Date.now());
  }

  /**
   * Follows the run's new tasks: slots whose task runs (or ended) are done, and ends that
   * count as failures may pause or roll back the update.
   */
  check(state: ClusterState, service: SwarmService, tasks: SwarmTask[]): void {
    const run = this.runOf(service);
    if (!run) return;
    const config = updateConfigOf(service.Spec, service.UpdateStatus?.State === 'rollback_started');
    const now = Date.now();
    for (const [id, since] of run.started) {
      const task = tasks.find((t) => t.ID === id);
      if (!task) {
        run.started.delete(id);
        continue;
      }
      const key = slotKey(task);
      if (run.inFlight.get(key) === id && (task.Status.State === 'running' || isTerminal(task))) {
        run.inFlight.delete(key);
        run.done.push(now);
      }
      if (!isTerminal(task)) continue;
      run.started.delete(id);
      if (!failedEnds.has(task.Status.State) || (since > 0 && now - since > config.Monitor / 1e6)) continue;
      run.failures++;
      if (run.failures / run.dirty > config.MaxFailureRatio && this.failureAction(state, service, task))
        return;
    }
  }

  /** Pauses or rolls back as FailureAction says; false when the update goes on. */
  private failureAction(state: ClusterState, service: SwarmService, task: SwarmTask): boolean {
    const rollingBack = service.UpdateStatus?.State === 'rollback_started';
    const action = updateConfigOf(service.Spec, rollingBack).FailureAction;
    const why = `due to failure or early termination of task ${task.ID}`;
    if (action === 'continue') return false;
    if (action === 'rollback' && !rollingBack) {
      // swarmkit cannot roll back without a previous spec, and goes on.
      if (!service.PreviousSpec) return false;
      this.change(state, service, () => rollBack(state, service, `update rolled back ${why}`));
    } else {
      this.change(state, service, () => {
        service.UpdateStatus = {
          ...service.UpdateStatus!,
          State: rollingBack ? 'rollback_paused' : 'paused',
          Message: `${rollingBack ? 'rollback' : 'update'} paused ${why}`,
        };
      });
    }
    this.runs.delete(service.ID);
    return true;
  }

  /**
   * Starts the next slots of the update, as many as the free workers allow, or completes it
   * once no slot is out of date and Monitor has passed. `outdated` holds each out-of-date
   * slot's running task; `slots` every slot the service has now.
   */
  async roll(
    state: ClusterState,
    service: SwarmService,
    outdated: SwarmTask[],
    slots: Set<string>,
  ): Promise<void> {
    const status = service.UpdateStatus;
    if (status?.State === 'paused' || status?.State === 'rollback_paused') return;
    let run = this.runOf(service);
    for (const key of run?.inFlight.keys() ?? []) if (!slots.has(key)) run!.inFlight.delete(key);
    const config = updateConfigOf(service.Spec, status?.State === 'rollback_started');
    const now = Date.now();
    const rest = config.Delay / 1e6;
    if (!outdated.length && !run?.inFlight.size) {
      if (!inProgress(status)) return;
      const finish = run?.done.length ? Math.max(...run.done) + rest + config.Monitor / 1e6 : 0;
      if (finish > now) return this.ops.later(`update:${service.ID}`, finish - now);
      this.runs.delete(service.ID);
      const rollback = status!.State === 'rollback_started';
      return this.change(state, service, () => {
        service.UpdateStatus = {
          ...status!,
          State: rollback ? 'rollback_completed' : 'completed',
          CompletedAt: swarmTimestamp(),
          Message: rollback ? 'rollback completed' : 'update completed',
        };
      });
    }
    if (!inProgress(status))
      this.change(state, service, () => {
        service.UpdateStatus = {
          State: 'updating',
          StartedAt: swarmTimestamp(),
          Message: 'update in progress',
        };
      });
    if (!run) {
      run = {
        id: runId(service.UpdateStatus),
        dirty: outdated.length,
        inFlight: new Map(),
        started: new Map(),
        failures: 0,
        done: [],
      };
      this.runs.set(service.ID, run);
    }
    const resting = run.done.filter((at) => at + rest > now);
    const free = (config.Parallelism || run.dirty) - run.inFlight.size - resting.length;
    if (free <= 0) {
      if (resting.length) this.ops.later(`update:${service.ID}`, Math.min(...resting) + rest - now);
      return;
    }
    for (const old of outdated.slice(0, free)) {
      run.inFlight.set(slotKey(old), undefined);
      // stop-first: the slot gets its new task once the old one has stopped (a later pass).
      if (config.Order === 'start-first') await this.ops.runTask(state, service, slotOf(old));
      else this.ops.shutdown(state, old);
    }
  }

  /** Changes the service and says so in an update event with what changed. */
  private change(state: ClusterState, service: SwarmService, fn: () => void): void {
    const before = serviceView(service);
    fn();
    this.cluster.touch(state, service);
    this.cluster.publish(
      'service',
      'update',
      service.ID,
      serviceUpdateAttributes(before, serviceView(service)),
    );
  }
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

// A replicated job's runs: up to MaxConcurrent tasks at a time until TotalCompletions of them
// have completed, in slots numbered from 0 as swarmkit numbers them; a failed run is started
// again in its slot as the restart policy allows. An update of the job is a new iteration:
// the old one's tasks stop and the count starts again.
import type { SwarmNode, SwarmService, SwarmTask } from '../../api/swarm-types';
import type { ClusterState } from './cluster-state';
import { restartDue } from './restart-policy';
import { sameIteration, type TaskOps } from './service-reconciler';
import { isTerminal, meantToRun } from './task-states';

const unplaced = (t: SwarmTask) => t.Status.State === 'pending' || t.Status.State === 'new';

export class JobRunner {
  constructor(private readonly ops: TaskOps) {}

  async reconcile(state: ClusterState, service: SwarmService, node: SwarmNode, tasks: SwarmTask[]) {
    const job = service.Spec.Mode?.ReplicatedJob ?? {};
    const maxConcurrent = job.MaxConcurrent ?? 1;
    const total = job.TotalCompletions ?? maxConcurrent;
    const iteration = tasks.filter((t) => sameIteration(service, t));
    for (const old of tasks.filter((t) => !sameIteration(service, t) && !isTerminal(t)))
      this.ops.shutdown(state, old);
    const completed = iteration.filter((t) => t.Status.State === 'complete').length;
    const wanted = iteration.filter(meantToRun);
    let live = wanted.filter((t) => !isTerminal(t)).length;
    for (const t of wanted.filter(unplaced)) await this.ops.place(state, service, t);
    const later = (key: string, ms: number) => this.ops.later(key, ms);
    for (const failed of wanted.filter((t) => isTerminal(t) && t.Status.State !== 'complete')) {
      this.ops.retire(state, failed);
      const slot = failed.Slot ?? 0;
      const history = iteration.filter((t) => (t.Slot ?? 0) === slot);
      if (restartDue(service, node, failed, history, later)) {
        await this.ops.runTask(state, service, { key: String(slot), slot });
        live++;
      }
    }
    let next = iteration.length ? Math.max(...iteration.map((t) => t.Slot ?? 0)) + 1 : 0;
    while (live < maxConcurrent && completed + live < total) {
      await this.ops.runTask(state, service, { key: String(next), slot: next });
      next++;
      live++;
    }
  }
}

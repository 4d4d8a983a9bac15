// The task states as the orchestrator groups them, and what makes a task out of date.
import type { SwarmService, SwarmTask, TaskState } from '../../api/swarm-types';

const terminal = new Set<TaskState>(['complete', 'shutdown', 'failed', 'rejected', 'orphaned', 'remove']);
/** States in which a task has (or is getting) a container that runs. */
export const active = new Set<TaskState>(['preparing', 'ready', 'starting', 'running']);

export const isTerminal = (t: SwarmTask) => terminal.has(t.Status.State);

/** A task meant to run: desired running, or complete for a job's (its runs end by design). */
export const meantToRun = (t: SwarmTask) => t.DesiredState === 'running' || t.DesiredState === 'complete';

/** A task whose spec is not the service's current one: an update replaces it. */
export const isOutdated = (service: SwarmService, task: SwarmTask) =>
  JSON.stringify(task.Spec) !== JSON.stringify(service.Spec.TaskTemplate);

/** A place a task fills: a replicated service's slot number, or a global service's node. */
export type Slot = { key: string; slot?: number; nodeId?: string };

export const slotKey = (t: SwarmTask) => (t.Slot ? String(t.Slot) : (t.NodeID ?? ''));

export const slotOf = (t: SwarmTask): Slot => ({
  key: slotKey(t),
  ...(t.Slot ? { slot: t.Slot } : { nodeId: t.NodeID }),
});

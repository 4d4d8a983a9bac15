// The restart policy's verdict on a slot whose task ended: condition, max attempts within the
// window, and the delay (none on a drained node, as swarmkit moves those tasks at once).
import type { SwarmNode, SwarmService, SwarmTask } from '../../api/swarm-types';
import { modeOf, restartPolicyOf } from './service-spec';
import { isOutdated } from './task-states';

/**
 * Whether the slot gets a new task now; when it must wait for the delay, `later` is told
 * how long.
 */
export function restartDue(
  service: SwarmService,
  node: SwarmNode,
  last: SwarmTask,
  history: SwarmTask[],
  later: (key: string, ms: number) => void,
): boolean {
  // A task an update stopped (stop-first) is replaced at once, whatever the policy.
  if (last.DesiredState === 'shutdown' && last.Status.State === 'shutdown' && isOutdated(service, last))
    return true;
  const policy = restartPolicyOf(service.Spec, modeOf(service.Spec).endsWith('job'));
  if (policy.Condition === 'none') return false;
  if (policy.Condition === 'on-failure' && last.Status.State === 'complete') return false;
  if (policy.MaxAttempts > 0) {
    const windowStart = policy.Window > 0 ? Date.now() - policy.Window / 1e6 : 0;
    const restarts = history.filter((t) => Date.parse(t.CreatedAt) >= windowStart).length - 1;
    if (restarts >= policy.MaxAttempts) return false;
  }
  if (node.Spec.Availability === 'drain') return true;
  const wait = Date.parse(last.Status.Timestamp) + policy.Delay / 1e6 - Date.now();
  if (wait > 0) {
    later(`restart:${last.ID}`, wait);
    return false;
  }
  return true;
}

// GET/POST/DELETE /nodes on the one node.
import { ConflictError, InvalidParameterError } from '../../api/errors';
import type { Filters } from '../../api/filters';
import type { NodeSpec, SwarmNode } from '../../api/swarm-types';
import type { Cluster } from './cluster';
import { nodeUpdateAttributes } from './swarm-events';
import { checkNodeSpec, findNode, nodeMatches } from './swarm-node';

/** A version query that does not match the object's: refused, as swarmkit refuses a stale write. */
export function checkVersion(what: string, current: number, given: number): void {
  if (current !== given)
    throw new ConflictError(
      `update out of sequence: ${what} is at version ${current}, the request gave ${given}`,
    );
}

export class NodesService {
  constructor(private readonly cluster: Cluster) {}

  list(filters: Filters): SwarmNode[] {
    return this.cluster.current().nodes.filter((n) => nodeMatches(n, filters));
  }

  inspect(ref: string): SwarmNode {
    return findNode(this.cluster.current().nodes, ref);
  }

  update(ref: string, version: number, spec: NodeSpec): Promise<void> {
    return this.cluster.write((state) => {
      const node = findNode(state.nodes, ref);
      checkVersion(`node ${node.ID}`, node.Version.Index, version);
      const before = structuredClone(node);
      node.Spec = checkNodeSpec(spec, node);
      this.cluster.touch(state, node);
      this.cluster.publish('node', 'update', node.ID, nodeUpdateAttributes(before, node));
    });
  }

  remove(ref: string): void {
    const node = findNode(this.cluster.current().nodes, ref);
    // The only node is the swarm's manager: swarmkit refuses, force or not.
    throw new InvalidParameterError(
      `rpc error: code = FailedPrecondition desc = node ${node.ID} is a cluster manager and is a member of the raft cluster. It must be demoted to worker before removal`,
    );
  }
}

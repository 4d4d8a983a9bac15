// What the nodes router needs from the engine.
import type { Filters } from '../../../api/filters';
import type { NodeSpec, SwarmNode } from '../../../api/swarm-types';

export interface NodesBackend {
  list(filters: Filters): SwarmNode[];
  inspect(ref: string): SwarmNode;
  update(ref: string, version: number, spec: NodeSpec): Promise<void>;
  remove(ref: string, force: boolean): void;
}

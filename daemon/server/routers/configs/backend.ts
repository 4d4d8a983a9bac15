// What the configs router needs from the engine.
import type { Filters } from '../../../api/filters';
import type { ConfigSpec, IdResponse, SwarmConfig } from '../../../api/swarm-types';

export interface ConfigsBackend {
  create(spec: ConfigSpec): Promise<IdResponse>;
  list(filters: Filters): SwarmConfig[];
  inspect(ref: string): SwarmConfig;
  update(ref: string, version: number, spec: ConfigSpec): Promise<void>;
  remove(ref: string): Promise<void>;
}

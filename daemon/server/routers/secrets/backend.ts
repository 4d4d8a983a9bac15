// What the secrets router needs from the engine.
import type { Filters } from '../../../api/filters';
import type { IdResponse, SecretSpec, SwarmSecret } from '../../../api/swarm-types';

export interface SecretsBackend {
  create(spec: SecretSpec): Promise<IdResponse>;
  list(filters: Filters): SwarmSecret[];
  inspect(ref: string): SwarmSecret;
  update(ref: string, version: number, spec: SecretSpec): Promise<void>;
  remove(ref: string): Promise<void>;
}

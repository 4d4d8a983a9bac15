// What the swarm router needs from the engine.
import type { SwarmInitRequest, SwarmInspect, SwarmUpdateRequest } from '../../../api/swarm-types';

export interface SwarmBackend {
  /** Answers the new node's ID. */
  init(req: SwarmInitRequest): Promise<string>;
  join(): never;
  inspect(): SwarmInspect;
  update(req: SwarmUpdateRequest): Promise<void>;
  unlockKey(): { UnlockKey: string };
  unlock(key: string): Promise<void>;
  leave(force: boolean): Promise<void>;
}

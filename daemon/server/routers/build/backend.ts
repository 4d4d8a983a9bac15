// What the build router needs from the engine.
import type { BuildPruneRequest, BuildPruneResponse, BuildRequest } from '../../../api/build-types';

export interface BuildBackend {
  build(req: BuildRequest): Promise<void>;
  prune(req: BuildPruneRequest): Promise<BuildPruneResponse>;
}

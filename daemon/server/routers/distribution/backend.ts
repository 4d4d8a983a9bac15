// What the distribution router needs from the engine.
import type { DistributionInspect } from '../../../api/image-types';

export interface DistributionBackend {
  distributionInspect(
    name: string,
    auth: string | undefined,
    signal: AbortSignal,
  ): Promise<DistributionInspect>;
}

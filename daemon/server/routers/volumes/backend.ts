// What the volumes router needs from the engine.
import type {
  Volume,
  VolumeCreateBody,
  VolumeFilters,
  VolumeListResponse,
  VolumePruneResponse,
  VolumeRemoveOptions,
} from '../../../api/volume-types';

export interface VolumesBackend {
  list(filters: VolumeFilters): Promise<VolumeListResponse>;
  create(body: VolumeCreateBody): Promise<Volume>;
  inspect(name: string): Promise<Volume>;
  remove(name: string, opts: VolumeRemoveOptions): Promise<void>;
  prune(filters: VolumeFilters): Promise<VolumePruneResponse>;
}

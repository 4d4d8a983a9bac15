// A volume as the Engine API describes it (GET /volumes, /system/df), and the requests the
// volumes router hands its backend.
import type { Filters } from './filters';

export interface Volume {
  Name: string;
  Driver: string;
  Mountpoint: string;
  CreatedAt: string;
  /** null for a volume a container made without labels, as dockerd reports it. */
  Labels: Record<string, string> | null;
  Scope: 'local' | 'global';
  /** The driver options it was created with; null when it was created with none by a container. */
  Options: Record<string, string> | null;
  /** What a plugin's driver reports of the volume (VolumeDriver.Get), on inspect. */
  Status?: Record<string, unknown>;
  /** Present in /system/df: -1 where not computed, as the spec says. */
  UsageData?: { Size: number; RefCount: number } | null;
}

/** POST /volumes/create's body. */
export interface VolumeCreateBody {
  Name?: string;
  Driver?: string;
  DriverOpts?: Record<string, string> | null;
  Labels?: Record<string, string> | null;
}

export interface VolumeListResponse {
  Volumes: Volume[];
  Warnings: string[] | null;
}

export interface VolumePruneResponse {
  VolumesDeleted: string[] | null;
  SpaceReclaimed: number;
}

export interface VolumeRemoveOptions {
  /** Answer success for a volume that does not exist, as `docker volume rm -f` expects. */
  force: boolean;
}

export type VolumeFilters = Filters;

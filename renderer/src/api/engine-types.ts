// Engine wire types, taken type-only from daemon/api, plus the few shapes not declared there.
export type {
  ContainerSummary,
  ContainerInspect,
  ContainerPathStat,
} from '../../../daemon/api/container-summary-types';
export type { ContainerCreateBody } from '../../../daemon/api/container-types';
export type { EngineEvent } from '../../../daemon/api/event-types';
export type {
  ImageSummary,
  ImageInspect,
  ImageHistoryItem,
  ImageDeleteItem,
  JsonMessage,
  ImageSearchResult,
  DistributionInspect,
} from '../../../daemon/api/image-types';
export type { VersionResponse, InfoResponse, SystemDfResponse } from '../../../daemon/api/system-types';
export type { ContainerPruneResponse } from '../../../daemon/api/container-summary-types';
export type { ImagePruneResponse } from '../../../daemon/api/image-types';
export type { BuildPruneResponse } from '../../../daemon/api/build-types';
export type { VolumePruneResponse } from '../../../daemon/api/volume-types';
export type {
  NetworkConnectBody,
  NetworkCreateBody,
  NetworkPruneResponse,
  NetworkResource,
} from '../../../daemon/api/network-types';

export interface StatsSample {
  read: string;
  cpu_stats: {
    cpu_usage: { total_usage: number; percpu_usage?: number[] };
    system_cpu_usage?: number;
    online_cpus?: number;
  };
  precpu_stats: { cpu_usage: { total_usage: number }; system_cpu_usage?: number };
  memory_stats: { usage?: number; limit?: number; stats?: Record<string, number> };
  networks?: Record<string, { rx_bytes: number; tx_bytes: number }>;
  blkio_stats?: { io_service_bytes_recursive?: { op: string; value: number }[] | null };
  pids_stats?: { current?: number };
}

export interface Volume {
  Name: string;
  Driver: string;
  Mountpoint: string;
  CreatedAt?: string;
  Labels: Record<string, string> | null;
  Options?: Record<string, string> | null;
  Scope: string;
  UsageData?: { Size: number; RefCount: number } | null;
}

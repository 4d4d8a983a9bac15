// Engine wire types, taken type-only from daemon/api: the renderer declares none of its own.
export type {
  ContainerSummary,
  ContainerInspect,
  ContainerPathStat,
} from '../../../daemon/api/container-summary-types';
export type { ContainerCreateBody, ContainerCreateResponse } from '../../../daemon/api/container-types';
export type { ExecCreateResponse, ExecInspect } from '../../../daemon/api/exec-types';
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
export type {
  Volume,
  VolumeCreateBody,
  VolumeListResponse,
  VolumePruneResponse,
} from '../../../daemon/api/volume-types';
export type { StatsSample } from '../../../daemon/api/stats-types';
export type {
  NetworkConnectBody,
  NetworkCreateBody,
  NetworkCreateResponse,
  NetworkPruneResponse,
  NetworkResource,
} from '../../../daemon/api/network-types';

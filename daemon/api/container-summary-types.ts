// Wire types of the container read endpoints: inspect, list, wait, top, changes, archive stat.
import type { ContainerConfig, EndpointSettings, HostConfig, MountPoint } from './container-types';
import type { Filters } from './filters';

export type ContainerStatus =
  'created' | 'running' | 'paused' | 'restarting' | 'removing' | 'exited' | 'dead';

export interface HealthLogEntry {
  Start: string;
  End: string;
  ExitCode: number;
  Output: string;
}

export type HealthStatus = 'starting' | 'healthy' | 'unhealthy';

export interface HealthState {
  Status: HealthStatus;
  FailingStreak: number;
  Log: HealthLogEntry[];
}

export interface ContainerStateJson {
  Status: ContainerStatus;
  Running: boolean;
  Paused: boolean;
  Restarting: boolean;
  OOMKilled: boolean;
  Dead: boolean;
  Pid: number;
  ExitCode: number;
  Error: string;
  StartedAt: string;
  FinishedAt: string;
  Health?: HealthState;
}

export interface PortBindingJson {
  HostIp: string;
  HostPort: string;
}

export interface NetworkSettingsJson {
  Bridge: string;
  SandboxID: string;
  HairpinMode: boolean;
  LinkLocalIPv6Address: string;
  LinkLocalIPv6PrefixLen: number;
  Ports: Record<string, PortBindingJson[] | null>;
  SandboxKey: string;
  SecondaryIPAddresses: null;
  SecondaryIPv6Addresses: null;
  EndpointID: string;
  Gateway: string;
  GlobalIPv6Address: string;
  GlobalIPv6PrefixLen: number;
  IPAddress: string;
  IPPrefixLen: number;
  IPv6Gateway: string;
  MacAddress: string;
  Networks: Record<string, EndpointSettings>;
}

export interface ContainerInspect {
  Id: string;
  Created: string;
  Path: string;
  Args: string[];
  State: ContainerStateJson;
  Image: string;
  ResolvConfPath: string;
  HostnamePath: string;
  HostsPath: string;
  LogPath: string;
  Name: string;
  RestartCount: number;
  Driver: string;
  Platform: string;
  MountLabel: string;
  ProcessLabel: string;
  AppArmorProfile: string;
  ExecIDs: string[] | null;
  HostConfig: HostConfig;
  GraphDriver: { Name: string; Data: Record<string, string> | null };
  SizeRw?: number;
  SizeRootFs?: number;
  Mounts: MountPoint[];
  Config: ContainerConfig;
  NetworkSettings: NetworkSettingsJson;
}

export interface ContainerPort {
  IP?: string;
  PrivatePort: number;
  PublicPort?: number;
  Type: string;
}

export interface ContainerSummary {
  Id: string;
  Names: string[];
  Image: string;
  ImageID: string;
  Command: string;
  Created: number;
  Ports: ContainerPort[];
  SizeRw?: number;
  SizeRootFs?: number;
  Labels: Record<string, string>;
  State: ContainerStatus;
  Status: string;
  HostConfig: { NetworkMode: string };
  NetworkSettings: { Networks: Record<string, EndpointSettings> };
  Mounts: MountPoint[];
}

/** POST /containers/{id}/wait's `condition`. */
export type WaitCondition = 'not-running' | 'next-exit' | 'removed';

export interface ContainerWaitResponse {
  StatusCode: number;
  Error?: { Message: string } | null;
}

export interface ContainerTopResponse {
  Titles: string[];
  Processes: string[][];
}

/** Kind: 0 modified, 1 added, 2 deleted. */
export interface ContainerChange {
  Path: string;
  Kind: 0 | 1 | 2;
}

/** The stat carried base64-encoded in X-Svc-Container-Path-Stat. */
export interface ContainerPathStat {
  name: string;
  size: number;
  /** Go's os.FileMode bits: permissions plus type flags (dir 1<<31, symlink 1<<27...). */
  mode: number;
  mtime: string;
  linkTarget: string;
}

export interface ContainerUpdateResponse {
  Warnings: string[] | null;
}

export interface ContainerPruneResponse {
  ContainersDeleted: string[] | null;
  SpaceReclaimed: number;
}

/** POST /commit's options, read from its query and body. */
export interface CommitOptions {
  repo?: string;
  tag?: string;
  comment?: string;
  author?: string;
  /** Pause a running container while its changes are read (the engine does it). */
  pause: boolean;
  changes: string[];
  config?: ContainerConfig;
}

export interface CommitResponse {
  Id: string;
}

/** GET /containers/json as the router hands it to the engine. */
export interface ContainerListRequest {
  all: boolean;
  limit?: number;
  since?: string;
  before?: string;
  size: boolean;
  filters: Filters;
}

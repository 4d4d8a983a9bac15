// Wire shapes of the system endpoints (GET /version, /info, /system/df), as Docker 1.41 has them.
import type { SwarmInfo } from './swarm-types';
import type { ContainerSummary } from './container-summary-types';
import type { ImageSummary } from './image-types';
import type { Volume } from './volume-types';

export interface ComponentVersion {
  Name: string;
  Version: string;
  Details?: Record<string, string>;
}

export interface VersionResponse {
  Platform: { Name: string };
  Components: ComponentVersion[];
  Version: string;
  ApiVersion: string;
  MinAPIVersion: string;
  GitCommit: string;
  GoVersion: string;
  Os: string;
  Arch: string;
  KernelVersion: string;
  BuildTime: string;
  Experimental?: boolean;
}

export interface InfoResponse {
  ID: string;
  Containers: number;
  ContainersRunning: number;
  ContainersPaused: number;
  ContainersStopped: number;
  Images: number;
  Driver: string;
  DriverStatus: Array<[string, string]>;
  Plugins: { Volume: string[]; Network: string[]; Authorization: string[] | null; Log: string[] };
  MemoryLimit: boolean;
  SwapLimit: boolean;
  KernelMemory: boolean;
  KernelMemoryTCP: boolean;
  CpuCfsPeriod: boolean;
  CpuCfsQuota: boolean;
  CPUShares: boolean;
  CPUSet: boolean;
  PidsLimit: boolean;
  OomKillDisable: boolean;
  IPv4Forwarding: boolean;
  BridgeNfIptables: boolean;
  BridgeNfIp6tables: boolean;
  Debug: boolean;
  NFd: number;
  NGoroutines: number;
  SystemTime: string;
  LoggingDriver: string;
  CgroupDriver: string;
  CgroupVersion: string;
  NEventsListener: number;
  KernelVersion: string;
  OperatingSystem: string;
  OSVersion: string;
  OSType: string;
  Architecture: string;
  IndexServerAddress: string;
  RegistryConfig: {
    AllowNondistributableArtifactsCIDRs: string[];
    AllowNondistributableArtifactsHostnames: string[];
    InsecureRegistryCIDRs: string[];
    IndexConfigs: Record<string, { Name: string; Mirrors: string[]; Secure: boolean; Official: boolean }>;
    Mirrors: string[];
  };
  NCPU: number;
  MemTotal: number;
  GenericResources: null;
  DockerRootDir: string;
  HttpProxy: string;
  HttpsProxy: string;
  NoProxy: string;
  Name: string;
  Labels: string[];
  ExperimentalBuild: boolean;
  ServerVersion: string;
  Runtimes: Record<string, { path: string }>;
  DefaultRuntime: string;
  Swarm: SwarmInfo;
  LiveRestoreEnabled: boolean;
  Isolation: string;
  InitBinary: string;
  ContainerdCommit: { ID: string; Expected: string };
  RuncCommit: { ID: string; Expected: string };
  InitCommit: { ID: string; Expected: string };
  SecurityOptions: string[];
  Warnings: string[];
}

export interface SystemDfResponse {
  LayersSize: number;
  Images: ImageSummary[];
  Containers: ContainerSummary[];
  Volumes: Volume[];
  BuildCache: unknown[];
  BuilderSize: number;
}

// Wire types of the container create body (POST /containers/create), its HostConfig and the
// records they hold, spelled exactly as on the wire. Clients send `null` for unset fields as
// often as they omit them, so optional fields accept both.
import type { CreateBehaviours } from './versions';

/** Docker's StrSlice: a JSON string is a one-element list, never shell-split. */
export type StrSlice = string | string[];

export type PortMap = Record<string, PortBinding[] | null>;
export type PortSet = Record<string, Record<string, never>>;

export interface PortBinding {
  HostIp?: string;
  HostPort?: string;
}

export interface HealthConfig {
  /** `[]` inherit, `["NONE"]` disable, `["CMD", ...]` exec, `["CMD-SHELL", "cmd"]` shell. */
  Test?: string[] | null;
  /** Nanoseconds; 0 inherits. */
  Interval?: number;
  Timeout?: number;
  StartPeriod?: number;
  Retries?: number;
}

export interface ContainerConfig {
  Hostname?: string;
  Domainname?: string;
  User?: string;
  AttachStdin?: boolean;
  AttachStdout?: boolean;
  AttachStderr?: boolean;
  ExposedPorts?: PortSet | null;
  Tty?: boolean;
  OpenStdin?: boolean;
  StdinOnce?: boolean;
  Env?: string[] | null;
  Cmd?: StrSlice | null;
  Healthcheck?: HealthConfig | null;
  ArgsEscaped?: boolean;
  Image?: string;
  Volumes?: Record<string, Record<string, never>> | null;
  WorkingDir?: string;
  Entrypoint?: StrSlice | null;
  NetworkDisabled?: boolean;
  MacAddress?: string;
  OnBuild?: string[] | null;
  Labels?: Record<string, string> | null;
  /** A signal name (`SIGTERM`, `TERM`) or number; the spec allows an unsigned integer. */
  StopSignal?: string | number;
  /** Seconds (1.25+). */
  StopTimeout?: number | null;
  Shell?: string[] | null;
}

/** The create body: the container config plus HostConfig and NetworkingConfig. */
export interface ContainerCreateBody extends ContainerConfig {
  HostConfig?: HostConfig | null;
  NetworkingConfig?: NetworkingConfig | null;
}

/** POST /containers/create as the router hands it to the engine. */
export interface ContainerCreateRequest {
  /** The `name` query parameter, if any. */
  name?: string;
  /** Made by the swarm for a task (never from the API): named as dockerd names task containers. */
  swarmTask?: boolean;
  body: ContainerCreateBody;
  /** How the request's API version reads the body. */
  behaviours: CreateBehaviours;
}

/** A HostConfig given to start instead of create (older clients): it replaces the stored one. */
export interface LegacyStart {
  hostConfig: HostConfig;
  behaviours: CreateBehaviours;
}

export interface ContainerCreateResponse {
  Id: string;
  Warnings: string[] | null;
}

export interface RestartPolicy {
  /** '' or 'no' (never), 'always', 'unless-stopped', 'on-failure'. */
  Name?: string;
  MaximumRetryCount?: number;
}

export interface LogConfig {
  Type?: string;
  Config?: Record<string, string> | null;
}

export interface Ulimit {
  Name: string;
  Soft: number;
  Hard: number;
}

export interface DeviceMapping {
  PathOnHost: string;
  PathInContainer?: string;
  CgroupPermissions?: string;
}

export interface DeviceRequest {
  Driver?: string;
  Count?: number;
  DeviceIDs?: string[] | null;
  Capabilities?: string[][] | null;
  Options?: Record<string, string> | null;
}

export interface WeightDevice {
  Path: string;
  Weight: number;
}

export interface ThrottleDevice {
  Path: string;
  Rate: number;
}

export type MountType = 'bind' | 'volume' | 'tmpfs' | 'npipe';
export type MountPropagation = 'private' | 'rprivate' | 'shared' | 'rshared' | 'slave' | 'rslave';

export interface BindOptions {
  Propagation?: MountPropagation | '';
  NonRecursive?: boolean;
}

export interface VolumeOptions {
  NoCopy?: boolean;
  Labels?: Record<string, string> | null;
  DriverConfig?: { Name?: string; Options?: Record<string, string> | null } | null;
}

export interface TmpfsOptions {
  /** Bytes; 0 means the kernel's default. */
  SizeBytes?: number;
  /** File mode of the tmpfs root, e.g. 0o1777. */
  Mode?: number;
}

/** An item of HostConfig.Mounts (API 1.25+). */
export interface Mount {
  Type?: MountType | string;
  Source?: string;
  Target?: string;
  ReadOnly?: boolean;
  Consistency?: string;
  BindOptions?: BindOptions | null;
  VolumeOptions?: VolumeOptions | null;
  TmpfsOptions?: TmpfsOptions | null;
}

/** The resource fields of HostConfig, also the body of POST /containers/(id)/update. */
export interface Resources {
  CpuShares?: number;
  Memory?: number;
  NanoCpus?: number;
  CgroupParent?: string;
  BlkioWeight?: number;
  BlkioWeightDevice?: WeightDevice[] | null;
  BlkioDeviceReadBps?: ThrottleDevice[] | null;
  BlkioDeviceWriteBps?: ThrottleDevice[] | null;
  BlkioDeviceReadIOps?: ThrottleDevice[] | null;
  BlkioDeviceWriteIOps?: ThrottleDevice[] | null;
  CpuPeriod?: number;
  CpuQuota?: number;
  CpuRealtimePeriod?: number;
  CpuRealtimeRuntime?: number;
  CpusetCpus?: string;
  CpusetMems?: string;
  Devices?: DeviceMapping[] | null;
  DeviceCgroupRules?: string[] | null;
  DeviceRequests?: DeviceRequest[] | null;
  KernelMemory?: number;
  KernelMemoryTCP?: number;
  MemoryReservation?: number;
  MemorySwap?: number;
  MemorySwappiness?: number | null;
  OomKillDisable?: boolean | null;
  PidsLimit?: number | null;
  Ulimits?: Ulimit[] | null;
  CpuCount?: number;
  CpuPercent?: number;
  IOMaximumIOps?: number;
  IOMaximumBandwidth?: number;
}

export interface HostConfig extends Resources {
  Binds?: string[] | null;
  ContainerIDFile?: string;
  LogConfig?: LogConfig | null;
  /** bridge, host, none, default, container:<name|id>, or a network's name. */
  NetworkMode?: string;
  PortBindings?: PortMap | null;
  RestartPolicy?: RestartPolicy | null;
  AutoRemove?: boolean;
  VolumeDriver?: string;
  /** Each `<container name>[:<ro|rw>]`. */
  VolumesFrom?: string[] | null;
  Mounts?: Mount[] | null;
  CapAdd?: string[] | null;
  CapDrop?: string[] | null;
  CgroupnsMode?: '' | 'private' | 'host' | string;
  Dns?: string[] | null;
  DnsOptions?: string[] | null;
  DnsSearch?: string[] | null;
  /** Each `hostname:IP`. */
  ExtraHosts?: string[] | null;
  GroupAdd?: string[] | null;
  /** '', private, shareable, host, none, container:<name|id>. */
  IpcMode?: string;
  Cgroup?: string;
  Links?: string[] | null;
  OomScoreAdj?: number;
  /** '', host, container:<name|id>. */
  PidMode?: string;
  Privileged?: boolean;
  PublishAllPorts?: boolean;
  ReadonlyRootfs?: boolean;
  SecurityOpt?: string[] | null;
  StorageOpt?: Record<string, string> | null;
  Tmpfs?: Record<string, string> | null;
  UTSMode?: string;
  UsernsMode?: string;
  ShmSize?: number;
  Sysctls?: Record<string, string> | null;
  Runtime?: string;
  ConsoleSize?: [number, number] | null;
  Isolation?: string;
  MaskedPaths?: string[] | null;
  ReadonlyPaths?: string[] | null;
  Init?: boolean | null;
  /** Removed in 1.22; accepted and ignored as Docker did. */
  LxcConf?: unknown;
}

export interface EndpointIPAMConfig {
  IPv4Address?: string;
  IPv6Address?: string;
  LinkLocalIPs?: string[] | null;
}

export interface EndpointSettings {
  IPAMConfig?: EndpointIPAMConfig | null;
  Links?: string[] | null;
  Aliases?: string[] | null;
  NetworkID?: string;
  EndpointID?: string;
  Gateway?: string;
  IPAddress?: string;
  IPPrefixLen?: number;
  IPv6Gateway?: string;
  GlobalIPv6Address?: string;
  GlobalIPv6PrefixLen?: number;
  MacAddress?: string;
  DriverOpts?: Record<string, string> | null;
}

export interface NetworkingConfig {
  EndpointsConfig?: Record<string, EndpointSettings | null> | null;
}

/** A mount as shown in inspect and list results. */
export interface MountPoint {
  Type?: string;
  Name?: string;
  Source: string;
  Destination: string;
  Driver?: string;
  Mode: string;
  RW: boolean;
  Propagation: string;
}

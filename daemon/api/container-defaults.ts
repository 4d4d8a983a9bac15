// One typed default per object dockerd 20.10 shows with every key present at API 1.41: inspect
// starts from these and lays what is set on top, so a client indexing a key never misses it.
// Keys dockerd leaves out when empty (omitempty: Mounts, Tmpfs, Sysctls, Healthcheck...) are not
// here, so they stay out here too.
import type { ContainerConfig, HostConfig } from './container-types';

type Present<T, K extends keyof T> = Required<Pick<T, K>>;

/** `value` over `defaults`, keys `value` holds as undefined keeping their default. */
export function withDefaults<D extends object, V extends object>(defaults: D, value: V): D & V {
  const out: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out as D & V;
}

/** Config of a container and Config / ContainerConfig of an image. */
export type ContainerConfigShape = Present<
  ContainerConfig,
  | 'Hostname'
  | 'Domainname'
  | 'User'
  | 'AttachStdin'
  | 'AttachStdout'
  | 'AttachStderr'
  | 'Tty'
  | 'OpenStdin'
  | 'StdinOnce'
  | 'Env'
  | 'Cmd'
  | 'Image'
  | 'Volumes'
  | 'WorkingDir'
  | 'Entrypoint'
  | 'OnBuild'
  | 'Labels'
>;

export const containerConfigDefaults = {
  Hostname: '',
  Domainname: '',
  User: '',
  AttachStdin: false,
  AttachStdout: false,
  AttachStderr: false,
  Tty: false,
  OpenStdin: false,
  StdinOnce: false,
  Env: null,
  Cmd: null,
  Image: '',
  Volumes: null,
  WorkingDir: '',
  Entrypoint: null,
  OnBuild: null,
  Labels: null,
} satisfies ContainerConfigShape;

export type HostConfigShape = Present<
  HostConfig,
  Exclude<keyof HostConfig, 'Mounts' | 'StorageOpt' | 'Tmpfs' | 'Sysctls' | 'Init' | 'LxcConf'>
>;

export const hostConfigDefaults: HostConfigShape = {
  Binds: null,
  ContainerIDFile: '',
  LogConfig: { Type: 'json-file', Config: {} },
  NetworkMode: 'default',
  PortBindings: {},
  RestartPolicy: { Name: 'no', MaximumRetryCount: 0 },
  AutoRemove: false,
  VolumeDriver: '',
  VolumesFrom: null,
  CapAdd: null,
  CapDrop: null,
  CgroupnsMode: '',
  Dns: [],
  DnsOptions: [],
  DnsSearch: [],
  ExtraHosts: null,
  GroupAdd: null,
  IpcMode: '',
  Cgroup: '',
  Links: null,
  OomScoreAdj: 0,
  PidMode: '',
  Privileged: false,
  PublishAllPorts: false,
  ReadonlyRootfs: false,
  SecurityOpt: null,
  UTSMode: '',
  UsernsMode: '',
  ShmSize: 0,
  Runtime: 'runc',
  ConsoleSize: [0, 0],
  Isolation: '',
  MaskedPaths: null,
  ReadonlyPaths: null,
  CpuShares: 0,
  Memory: 0,
  NanoCpus: 0,
  CgroupParent: '',
  BlkioWeight: 0,
  BlkioWeightDevice: [],
  BlkioDeviceReadBps: null,
  BlkioDeviceWriteBps: null,
  BlkioDeviceReadIOps: null,
  BlkioDeviceWriteIOps: null,
  CpuPeriod: 0,
  CpuQuota: 0,
  CpuRealtimePeriod: 0,
  CpuRealtimeRuntime: 0,
  CpusetCpus: '',
  CpusetMems: '',
  Devices: [],
  DeviceCgroupRules: null,
  DeviceRequests: null,
  KernelMemory: 0,
  KernelMemoryTCP: 0,
  MemoryReservation: 0,
  MemorySwap: 0,
  MemorySwappiness: null,
  OomKillDisable: false,
  PidsLimit: null,
  Ulimits: null,
  CpuCount: 0,
  CpuPercent: 0,
  IOMaximumIOps: 0,
  IOMaximumBandwidth: 0,
};

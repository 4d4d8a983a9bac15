// The JSON types of the container create body's fields, as the wire types above declare them, so
// a body whose field has another type is refused naming the field (dockerd fails decoding it)
// instead of being half-read. `null` is accepted everywhere: clients send it for "unset".
export type FieldKind =
  | 'string'
  | 'number'
  | 'boolean'
  | 'strings'
  | 'stringMap'
  | 'object'
  | 'array'
  /** Docker's StrSlice: a string or an array of strings. */
  | 'strslice'
  /** A signal name or number. */
  | 'signal';

export type BodyShape = Record<string, FieldKind>;

export const containerConfigShape: BodyShape = {
  Hostname: 'string',
  Domainname: 'string',
  User: 'string',
  AttachStdin: 'boolean',
  AttachStdout: 'boolean',
  AttachStderr: 'boolean',
  ExposedPorts: 'object',
  Tty: 'boolean',
  OpenStdin: 'boolean',
  StdinOnce: 'boolean',
  Env: 'strings',
  Cmd: 'strslice',
  Healthcheck: 'object',
  ArgsEscaped: 'boolean',
  Image: 'string',
  Volumes: 'object',
  WorkingDir: 'string',
  Entrypoint: 'strslice',
  NetworkDisabled: 'boolean',
  MacAddress: 'string',
  OnBuild: 'strings',
  Labels: 'stringMap',
  StopSignal: 'signal',
  StopTimeout: 'number',
  Shell: 'strings',
  HostConfig: 'object',
  NetworkingConfig: 'object',
};

export const resourcesShape: BodyShape = {
  CpuShares: 'number',
  Memory: 'number',
  NanoCpus: 'number',
  CgroupParent: 'string',
  BlkioWeight: 'number',
  BlkioWeightDevice: 'array',
  BlkioDeviceReadBps: 'array',
  BlkioDeviceWriteBps: 'array',
  BlkioDeviceReadIOps: 'array',
  BlkioDeviceWriteIOps: 'array',
  CpuPeriod: 'number',
  CpuQuota: 'number',
  CpuRealtimePeriod: 'number',
  CpuRealtimeRuntime: 'number',
  CpusetCpus: 'string',
  CpusetMems: 'string',
  Devices: 'array',
  DeviceCgroupRules: 'strings',
  DeviceRequests: 'array',
  KernelMemory: 'number',
  KernelMemoryTCP: 'number',
  MemoryReservation: 'number',
  MemorySwap: 'number',
  MemorySwappiness: 'number',
  OomKillDisable: 'boolean',
  PidsLimit: 'number',
  Ulimits: 'array',
  CpuCount: 'number',
  CpuPercent: 'number',
  IOMaximumIOps: 'number',
  IOMaximumBandwidth: 'number',
};

export const hostConfigShape: BodyShape = {
  ...resourcesShape,
  Binds: 'strings',
  ContainerIDFile: 'string',
  LogConfig: 'object',
  NetworkMode: 'string',
  PortBindings: 'object',
  RestartPolicy: 'object',
  AutoRemove: 'boolean',
  VolumeDriver: 'string',
  VolumesFrom: 'strings',
  Mounts: 'array',
  CapAdd: 'strings',
  CapDrop: 'strings',
  CgroupnsMode: 'string',
  Dns: 'strings',
  DnsOptions: 'strings',
  DnsSearch: 'strings',
  ExtraHosts: 'strings',
  GroupAdd: 'strings',
  IpcMode: 'string',
  Cgroup: 'string',
  Links: 'strings',
  OomScoreAdj: 'number',
  PidMode: 'string',
  Privileged: 'boolean',
  PublishAllPorts: 'boolean',
  ReadonlyRootfs: 'boolean',
  SecurityOpt: 'strings',
  StorageOpt: 'stringMap',
  Tmpfs: 'stringMap',
  UTSMode: 'string',
  UsernsMode: 'string',
  ShmSize: 'number',
  Sysctls: 'stringMap',
  Runtime: 'string',
  ConsoleSize: 'array',
  Isolation: 'string',
  MaskedPaths: 'strings',
  ReadonlyPaths: 'strings',
  Init: 'boolean',
};

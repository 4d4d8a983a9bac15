// The subset of the OCI runtime spec 1.0.2 (config.json) that svcd writes, as runc 1.1 reads it.

export const OCI_VERSION = '1.0.2';

export interface OciSpec {
  ociVersion: string;
  process: OciProcess;
  root: { path: string; readonly?: boolean };
  hostname?: string;
  mounts: OciMount[];
  linux: OciLinux;
  annotations?: Record<string, string>;
}

export interface OciUser {
  uid: number;
  gid: number;
  additionalGids?: number[];
  umask?: number;
}

export interface OciCapabilities {
  bounding: string[];
  effective: string[];
  permitted: string[];
  inheritable: string[];
  ambient: string[];
}

export interface OciRlimit {
  type: string;
  hard: number;
  soft: number;
}

export interface OciProcess {
  terminal?: boolean;
  user: OciUser;
  args: string[];
  env: string[];
  cwd: string;
  capabilities: OciCapabilities;
  rlimits?: OciRlimit[];
  noNewPrivileges?: boolean;
  apparmorProfile?: string;
  oomScoreAdj?: number;
  selinuxLabel?: string;
}

export interface OciMount {
  destination: string;
  type?: string;
  source?: string;
  options?: string[];
}

export type OciNamespaceType = 'pid' | 'network' | 'mount' | 'ipc' | 'uts' | 'user' | 'cgroup';

export interface OciNamespace {
  type: OciNamespaceType;
  path?: string;
}

export interface OciDevice {
  type: 'c' | 'b' | 'u' | 'p';
  path: string;
  major: number;
  minor: number;
  fileMode?: number;
  uid?: number;
  gid?: number;
}

export interface OciDeviceRule {
  allow: boolean;
  type?: 'a' | 'c' | 'b';
  major?: number;
  minor?: number;
  access?: string;
}

export interface OciMemory {
  limit?: number;
  reservation?: number;
  swap?: number;
  kernel?: number;
  swappiness?: number;
  disableOOMKiller?: boolean;
}

export interface OciCpu {
  shares?: number;
  quota?: number;
  period?: number;
  realtimeRuntime?: number;
  realtimePeriod?: number;
  cpus?: string;
  mems?: string;
}

export interface OciBlockDevice {
  major: number;
  minor: number;
}

export interface OciWeightDevice extends OciBlockDevice {
  weight: number;
}

export interface OciThrottleDevice extends OciBlockDevice {
  rate: number;
}

export interface OciBlockIO {
  weight?: number;
  weightDevice?: OciWeightDevice[];
  throttleReadBpsDevice?: OciThrottleDevice[];
  throttleWriteBpsDevice?: OciThrottleDevice[];
  throttleReadIOPSDevice?: OciThrottleDevice[];
  throttleWriteIOPSDevice?: OciThrottleDevice[];
}

export interface OciResources {
  devices?: OciDeviceRule[];
  memory?: OciMemory;
  cpu?: OciCpu;
  pids?: { limit: number };
  blockIO?: OciBlockIO;
}

export interface OciSeccomp {
  defaultAction: string;
  defaultErrnoRet?: number;
  architectures?: string[];
  syscalls?: { names: string[]; action: string; errnoRet?: number; args?: OciSeccompArg[] }[];
}

export interface OciSeccompArg {
  index: number;
  value: number;
  valueTwo?: number;
  op: string;
}

export interface OciLinux {
  namespaces: OciNamespace[];
  devices?: OciDevice[];
  resources: OciResources;
  cgroupsPath?: string;
  sysctl?: Record<string, string>;
  maskedPaths?: string[];
  readonlyPaths?: string[];
  seccomp?: OciSeccomp;
  rootfsPropagation?: string;
}

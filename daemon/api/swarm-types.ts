// The wire types of swarm mode (API 1.41): the swarm, its nodes, services, tasks, secrets and
// configs, and the requests their routers hand the swarm engine.
import type { Mount } from './container-types';
import type { Filters } from './filters';

export interface ObjectVersion {
  Index: number;
}

/** Fields every swarm object carries. */
export interface SwarmObjectMeta {
  ID: string;
  Version: ObjectVersion;
  CreatedAt: string;
  UpdatedAt: string;
}

export interface SwarmSpec {
  Name?: string;
  Labels?: Record<string, string>;
  Orchestration?: { TaskHistoryRetentionLimit?: number };
  Raft?: {
    SnapshotInterval?: number;
    KeepOldSnapshots?: number;
    LogEntriesForSlowFollowers?: number;
    ElectionTick?: number;
    HeartbeatTick?: number;
  };
  Dispatcher?: { HeartbeatPeriod?: number };
  CAConfig?: {
    NodeCertExpiry?: number;
    ExternalCAs?: unknown[];
    SigningCACert?: string;
    SigningCAKey?: string;
    ForceRotate?: number;
  };
  TaskDefaults?: { LogDriver?: { Name?: string; Options?: Record<string, string> } };
  EncryptionConfig?: { AutoLockManagers?: boolean };
}

export interface TlsInfo {
  TrustRoot: string;
  CertIssuerSubject: string;
  CertIssuerPublicKey: string;
}

export interface JoinTokens {
  Worker: string;
  Manager: string;
}

/** GET /swarm. */
export interface SwarmInspect extends SwarmObjectMeta {
  Spec: SwarmSpec;
  TLSInfo: TlsInfo;
  RootRotationInProgress: boolean;
  DataPathPort: number;
  DefaultAddrPool: string[];
  SubnetSize: number;
  JoinTokens: JoinTokens;
}

export interface SwarmInitRequest {
  ListenAddr?: string;
  AdvertiseAddr?: string;
  DataPathAddr?: string;
  DataPathPort?: number;
  DefaultAddrPool?: string[];
  SubnetSize?: number;
  ForceNewCluster?: boolean;
  Spec?: SwarmSpec;
  AutoLockManagers?: boolean;
  Availability?: string;
}

export interface SwarmUpdateRequest {
  version: number;
  spec: SwarmSpec;
  rotateWorkerToken: boolean;
  rotateManagerToken: boolean;
  rotateManagerUnlockKey: boolean;
}

/** GET /info's Swarm block. */
export interface SwarmInfo {
  NodeID: string;
  NodeAddr: string;
  LocalNodeState: 'inactive' | 'active' | 'locked';
  ControlAvailable: boolean;
  Error: string;
  RemoteManagers: Array<{ NodeID: string; Addr: string }> | null;
  Nodes?: number;
  Managers?: number;
  Cluster?: Omit<SwarmInspect, 'JoinTokens'>;
}

export interface NodeSpec {
  Name?: string;
  Labels?: Record<string, string>;
  Role?: 'worker' | 'manager';
  Availability?: 'active' | 'pause' | 'drain';
}

export interface SwarmNode extends SwarmObjectMeta {
  Spec: NodeSpec;
  Description: {
    Hostname: string;
    Platform: { Architecture: string; OS: string };
    Resources: { NanoCPUs: number; MemoryBytes: number };
    Engine: {
      EngineVersion: string;
      Labels?: Record<string, string>;
      Plugins: Array<{ Type: string; Name: string }>;
    };
    TLSInfo: TlsInfo;
  };
  Status: { State: 'ready' | 'down'; Addr: string; Message?: string };
  ManagerStatus?: { Leader: boolean; Reachability: string; Addr: string };
}

export interface SecretSpec {
  Name?: string;
  Labels?: Record<string, string>;
  /** Base64 on the wire. */
  Data?: string;
  Driver?: { Name: string; Options?: Record<string, string> };
  Templating?: { Name: string; Options?: Record<string, string> };
}

export type ConfigSpec = Omit<SecretSpec, 'Driver'>;

export interface SwarmSecret extends SwarmObjectMeta {
  Spec: SecretSpec;
}

export interface SwarmConfig extends SwarmObjectMeta {
  Spec: ConfigSpec;
}

/** A secret or config reference of a ContainerSpec. */
export interface FileReference {
  File?: { Name: string; UID?: string; GID?: string; Mode?: number };
  Runtime?: Record<string, never>;
  SecretID?: string;
  SecretName?: string;
  ConfigID?: string;
  ConfigName?: string;
}

/** A ContainerSpec's mount: the same shape as a container's HostConfig.Mounts entry. */
export type ServiceMount = Mount;

export interface ContainerSpec {
  Image?: string;
  Labels?: Record<string, string>;
  Command?: string[];
  Args?: string[];
  Hostname?: string;
  Env?: string[];
  Dir?: string;
  User?: string;
  Groups?: string[];
  Privileges?: unknown;
  TTY?: boolean;
  OpenStdin?: boolean;
  ReadOnly?: boolean;
  Mounts?: ServiceMount[];
  StopSignal?: string;
  /** Nanoseconds. */
  StopGracePeriod?: number;
  HealthCheck?: {
    Test?: string[];
    Interval?: number;
    Timeout?: number;
    Retries?: number;
    StartPeriod?: number;
  };
  /** `IP host [alias...]`, as /etc/hosts lines. */
  Hosts?: string[];
  DNSConfig?: { Nameservers?: string[]; Search?: string[]; Options?: string[] };
  Secrets?: FileReference[];
  Configs?: FileReference[];
  Isolation?: string;
  Init?: boolean | null;
  Sysctls?: Record<string, string>;
  CapabilityAdd?: string[];
  CapabilityDrop?: string[];
  Ulimits?: Array<{ Name: string; Soft: number; Hard: number }>;
}

export interface RestartPolicySpec {
  Condition?: 'none' | 'on-failure' | 'any';
  /** Nanoseconds. */
  Delay?: number;
  MaxAttempts?: number;
  /** Nanoseconds. */
  Window?: number;
}

export interface TaskSpec {
  ContainerSpec?: ContainerSpec;
  PluginSpec?: unknown;
  NetworkAttachmentSpec?: unknown;
  Resources?: {
    Limits?: { NanoCPUs?: number; MemoryBytes?: number; Pids?: number };
    Reservations?: { NanoCPUs?: number; MemoryBytes?: number };
  };
  RestartPolicy?: RestartPolicySpec;
  Placement?: {
    Constraints?: string[];
    Preferences?: Array<{ Spread?: { SpreadDescriptor: string } }>;
    MaxReplicas?: number;
    Platforms?: Array<{ Architecture?: string; OS?: string }>;
  };
  ForceUpdate?: number;
  Runtime?: string;
  Networks?: Array<{ Target: string; Aliases?: string[]; DriverOpts?: Record<string, string> }>;
  LogDriver?: { Name?: string; Options?: Record<string, string> };
}

export interface UpdateConfig {
  Parallelism?: number;
  /** Nanoseconds. */
  Delay?: number;
  FailureAction?: 'continue' | 'pause' | 'rollback';
  /** Nanoseconds. */
  Monitor?: number;
  MaxFailureRatio?: number;
  Order?: 'stop-first' | 'start-first';
}

export interface ServiceMode {
  Replicated?: { Replicas?: number };
  Global?: Record<string, never>;
  ReplicatedJob?: { MaxConcurrent?: number; TotalCompletions?: number };
  GlobalJob?: Record<string, never>;
}

export interface PortConfig {
  Name?: string;
  Protocol?: 'tcp' | 'udp' | 'sctp';
  TargetPort?: number;
  PublishedPort?: number;
  PublishMode?: 'ingress' | 'host';
}

export interface EndpointSpec {
  Mode?: 'vip' | 'dnsrr';
  Ports?: PortConfig[];
}

export interface ServiceSpec {
  Name?: string;
  Labels?: Record<string, string>;
  TaskTemplate?: TaskSpec;
  Mode?: ServiceMode;
  UpdateConfig?: UpdateConfig;
  RollbackConfig?: UpdateConfig;
  /** Deprecated at the service level (TaskTemplate.Networks), still accepted. */
  Networks?: TaskSpec['Networks'];
  EndpointSpec?: EndpointSpec;
}

export interface UpdateStatus {
  State: 'updating' | 'paused' | 'completed' | 'rollback_started' | 'rollback_paused' | 'rollback_completed';
  StartedAt?: string;
  CompletedAt?: string;
  Message: string;
}

export interface SwarmService extends SwarmObjectMeta {
  Spec: ServiceSpec;
  PreviousSpec?: ServiceSpec;
  Endpoint: {
    Spec: EndpointSpec;
    Ports?: PortConfig[];
    VirtualIPs?: Array<{ NetworkID: string; Addr: string }>;
  };
  UpdateStatus?: UpdateStatus;
  ServiceStatus?: { RunningTasks: number; DesiredTasks: number; CompletedTasks: number };
  JobStatus?: { JobIteration: ObjectVersion; LastExecution?: string };
}

export type TaskState =
  | 'new'
  | 'allocated'
  | 'pending'
  | 'assigned'
  | 'accepted'
  | 'preparing'
  | 'ready'
  | 'starting'
  | 'running'
  | 'complete'
  | 'shutdown'
  | 'failed'
  | 'rejected'
  | 'remove'
  | 'orphaned';

export interface TaskStatus {
  Timestamp: string;
  State: TaskState;
  Message: string;
  Err?: string;
  ContainerStatus?: { ContainerID: string; PID: number; ExitCode: number };
  PortStatus: { Ports?: PortConfig[] };
}

export interface SwarmTask extends SwarmObjectMeta {
  Labels: Record<string, string>;
  Spec: TaskSpec;
  ServiceID: string;
  Slot?: number;
  NodeID?: string;
  Status: TaskStatus;
  DesiredState: 'running' | 'shutdown' | 'accepted' | 'complete';
  NetworksAttachments?: Array<{ Network: unknown; Addresses: string[] }>;
  JobIteration?: ObjectVersion;
}

/** What POST /secrets/create and /configs/create answer (Docker's IDResponse). */
export interface IdResponse {
  ID: string;
}

export interface ServiceCreateResponse extends IdResponse {
  Warnings?: string[] | null;
}

export interface ServiceUpdateRequest {
  ref: string;
  version: number;
  spec: ServiceSpec;
  rollback: boolean;
  /** X-Registry-Auth, for the tasks' image pulls. */
  auth?: string;
  /** Whose registry auth the new spec keeps when the request brings none. */
  authFrom: 'spec' | 'previous-spec';
}

export interface ServiceListRequest {
  filters: Filters;
  status: boolean;
}

export interface ServiceLogsRequest {
  stdout: boolean;
  stderr: boolean;
  since?: bigint;
  tail?: number;
  follow: boolean;
  timestamps: boolean;
  details: boolean;
  signal: AbortSignal;
}

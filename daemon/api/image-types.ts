// Wire shapes of the image endpoints (API 1.41), and the image config as images carry it.
import type { Readable } from 'node:stream';
import type { ContainerConfigShape } from './container-defaults';

/** The `config` part of an image config: what containers inherit. */
export interface OciContainerConfig {
  User?: string;
  ExposedPorts?: Record<string, object> | null;
  Env?: string[] | null;
  Entrypoint?: string[] | null;
  Cmd?: string[] | null;
  Volumes?: Record<string, object> | null;
  WorkingDir?: string;
  Labels?: Record<string, string> | null;
  StopSignal?: string;
  Healthcheck?: unknown;
  OnBuild?: string[] | null;
  Shell?: string[] | null;
}

export interface OciHistoryEntry {
  created?: string;
  created_by?: string;
  author?: string;
  comment?: string;
  empty_layer?: boolean;
}

/** An image config (OCI / Docker), as stored in the content store; its digest is the image ID. */
export interface OciImageConfig {
  architecture: string;
  os: string;
  variant?: string;
  'os.version'?: string;
  created?: string;
  author?: string;
  container?: string;
  docker_version?: string;
  config?: OciContainerConfig;
  container_config?: OciContainerConfig;
  rootfs: { type: 'layers'; diff_ids: string[] };
  history?: OciHistoryEntry[];
}

export interface ImageSummary {
  Id: string;
  ParentId: string;
  RepoTags: string[] | null;
  RepoDigests: string[] | null;
  Created: number;
  Size: number;
  SharedSize: number;
  VirtualSize: number;
  Labels: Record<string, string> | null;
  Containers: number;
}

/** An image's Config and ContainerConfig as inspect shows them: every key a container's has. */
export type ImageContainerConfig = OciContainerConfig & Omit<ContainerConfigShape, keyof OciContainerConfig>;

export interface ImageInspect {
  Id: string;
  RepoTags: string[];
  RepoDigests: string[];
  Parent: string;
  Comment: string;
  Created: string;
  Container: string;
  ContainerConfig: ImageContainerConfig;
  DockerVersion: string;
  Author: string;
  Config: ImageContainerConfig;
  Architecture: string;
  Variant?: string;
  Os: string;
  OsVersion?: string;
  Size: number;
  VirtualSize: number;
  GraphDriver: { Name: string; Data: Record<string, string> | null };
  RootFS: { Type: string; Layers: string[] };
  Metadata: { LastTagTime: string };
}

export interface ImageHistoryItem {
  Id: string;
  Created: number;
  CreatedBy: string;
  Tags: string[] | null;
  Size: number;
  Comment: string;
}

export type ImageDeleteItem = { Untagged: string } | { Deleted: string };

export interface ImagePruneResponse {
  ImagesDeleted: ImageDeleteItem[] | null;
  SpaceReclaimed: number;
}

export interface AuthResponse {
  Status: string;
  IdentityToken?: string;
}

/** One message of the JSON progress streams of pull, push, import and load. */
export interface JsonMessage {
  status?: string;
  id?: string;
  progress?: string;
  progressDetail?: { current?: number; total?: number };
  stream?: string;
  aux?: Record<string, unknown>;
}

/** The in-stream error object of Docker's JSON streams. */
export interface JsonStreamError {
  error: string;
  errorDetail: { code?: number; message: string };
}

/** Where a long operation writes its progress (one JSON message per line of the response). */
export type Emit = (message: JsonMessage) => void;

/** POST /images/create?fromImage=…: the router's query and X-Registry-Auth. */
export interface ImagePullRequest {
  image: string;
  tag?: string;
  platform?: string;
  auth?: string;
  emit: Emit;
  signal?: AbortSignal;
}

/** POST /images/{name}/push. */
export interface ImagePushRequest {
  name: string;
  tag?: string;
  auth?: string;
  emit: Emit;
  signal?: AbortSignal;
}

/** POST /images/create?fromSrc=…: the body or URL to import. */
export interface ImageImportRequest {
  body?: Readable;
  fromSrc: string;
  repo?: string;
  tag?: string;
  message?: string;
  changes: string[];
  platform?: string;
  emit: Emit;
  signal?: AbortSignal;
}

/** One result of GET /images/search. */
export interface ImageSearchResult {
  name: string;
  description: string;
  star_count: number;
  is_official: boolean;
  is_automated: boolean;
  /** Deprecated; the same as is_automated. */
  is_trusted: boolean;
}

export interface ImageSearchRequest {
  term: string;
  limit: number;
  /** is-official, is-automated (true/false) and stars (a minimum). */
  filters: Map<string, string[]>;
  auth?: string;
  signal?: AbortSignal;
}

/** GET /distribution/{name}/json. */
export interface DistributionInspect {
  Descriptor: { mediaType: string; digest: string; size: number; urls?: string[] };
  Platforms: Array<{
    architecture: string;
    os: string;
    'os.version'?: string;
    'os.features'?: string[];
    variant?: string;
    features?: string[];
  }>;
}

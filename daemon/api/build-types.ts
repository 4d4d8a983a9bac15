// POST /build and POST /build/prune: what the router hands the build service.
import type { Readable } from 'node:stream';
import type { Emit } from './image-types';

/** Resource limits and network settings of the containers that RUN steps run in. */
export interface BuildRunSettings {
  memory: number;
  memorySwap: number;
  cpuShares: number;
  cpuSetCpus: string;
  cpuPeriod: number;
  cpuQuota: number;
  shmSize: number;
  networkMode: string;
  extraHosts: string[];
}

export interface BuildRequest {
  /** The context archive, when no `remote` is given. */
  body: Readable;
  /** An http(s) URL of a tar or of one instructions file, or a git URL (`#ref:dir`). */
  remote?: string;
  /** The instructions file's path in the context (`svcfile`, or its twin `dockerfile`). */
  instructionsFile?: string;
  tags: string[];
  quiet: boolean;
  noCache: boolean;
  pull: boolean;
  /** Remove intermediate containers after a successful step (default), or always (forceRm). */
  rm: boolean;
  forceRm: boolean;
  buildArgs: Record<string, string | null>;
  labels: Record<string, string>;
  target?: string;
  cacheFrom: string[];
  platform?: string;
  run: BuildRunSettings;
  /** X-Registry-Config: credentials per registry, for base-image pulls (base64 JSON, as sent). */
  registryConfig?: string;
  /** Send the image ID as an aux message (API 1.30 and later). */
  announceId: boolean;
  emit: Emit;
  signal: AbortSignal;
}

export interface BuildPruneRequest {
  all: boolean;
  keepStorage: number;
}

export interface BuildPruneResponse {
  CachesDeleted: string[] | null;
  SpaceReclaimed: number;
}

/** A step that failed in a way the client reads from the stream's errorDetail code (a RUN's exit). */
export class BuildStepError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

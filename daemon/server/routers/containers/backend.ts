// What the containers router needs from the engine.
import type { Readable } from 'node:stream';
import type {
  CommitOptions,
  CommitResponse,
  ContainerChange,
  ContainerInspect,
  ContainerListRequest,
  ContainerPathStat,
  ContainerPruneResponse,
  ContainerSummary,
  ContainerTopResponse,
  ContainerUpdateResponse,
  ContainerWaitResponse,
  WaitCondition,
} from '../../../api/container-summary-types';
import type {
  ContainerCreateResponse,
  ContainerCreateRequest,
  LegacyStart,
  Resources,
  RestartPolicy,
} from '../../../api/container-types';

import type { Filters } from '../../http/query';

/** Commit's options are the engine's own, with the container they apply to. */
export type CommitRequest = CommitOptions & { container: string };

export interface ContainersBackend {
  list(req: ContainerListRequest): Promise<ContainerSummary[]>;
  create(req: ContainerCreateRequest): Promise<ContainerCreateResponse>;
  inspect(ref: string, size: boolean): Promise<ContainerInspect>;
  /** The HostConfig older clients give to start. */
  start(ref: string, legacy?: LegacyStart): Promise<void>;
  stop(ref: string, timeoutSec?: number): Promise<void>;
  restart(ref: string, timeoutSec?: number): Promise<void>;
  kill(ref: string, signal?: string): Promise<void>;
  pause(ref: string): Promise<void>;
  unpause(ref: string): Promise<void>;
  /** Registers the wait before resolving; the returned promise settles when the condition is met. */
  wait(ref: string, condition: WaitCondition): Promise<{ result: Promise<ContainerWaitResponse> }>;
  rename(ref: string, name: string): Promise<void>;
  update(
    ref: string,
    body: Resources & { RestartPolicy?: RestartPolicy | null },
  ): Promise<ContainerUpdateResponse>;
  remove(ref: string, opts: { force: boolean; volumes: boolean; link: boolean }): Promise<void>;
  prune(filters: Filters): Promise<ContainerPruneResponse>;
  top(ref: string, psArgs: string): Promise<ContainerTopResponse>;
  changes(ref: string): Promise<ContainerChange[]>;
  export(ref: string): Promise<Readable>;
  resize(ref: string, height: number, width: number): Promise<void>;
  archiveStat(ref: string, path: string): Promise<ContainerPathStat>;
  /** `event`: `copy` for the pre-1.20 copy endpoint, else `archive-path`. */
  archiveGet(
    ref: string,
    path: string,
    event?: 'archive-path' | 'copy',
  ): Promise<{ stat: ContainerPathStat; archive: Readable }>;
  archivePut(
    ref: string,
    path: string,
    body: Readable,
    opts: { noOverwriteDirNonDir: boolean; copyUIDGID: boolean },
  ): Promise<void>;
  commit(req: CommitRequest): Promise<CommitResponse>;
}

// What the image router needs from the engine.
import type { Readable } from 'node:stream';
import type {
  AuthResponse,
  ImageDeleteItem,
  ImageHistoryItem,
  ImageInspect,
  ImagePruneResponse,
  ImageSummary,
} from '../../../api/image-types';
import type { PullArgs as PullRequest } from '../../../engine/images/image-pull';
import type { PushArgs as PushRequest } from '../../../engine/images/image-push';
import type { ImportRequest } from '../../../engine/images/image-service';
import type { Emit } from '../../../engine/images/progress';
import type { Filters } from '../../http/query';

// The request shapes are the engine's own: the router fills them from the query and headers.
export type { Emit, ImportRequest, PullRequest, PushRequest };

export interface ImagesBackend {
  list(options: { filters: Filters }): Promise<ImageSummary[]>;
  inspect(name: string): Promise<ImageInspect>;
  history(name: string): Promise<ImageHistoryItem[]>;
  tag(name: string, repo: string | undefined, tag: string | undefined): Promise<void>;
  remove(name: string, options: { force: boolean; noprune: boolean }): Promise<ImageDeleteItem[]>;
  prune(filters: Filters): Promise<ImagePruneResponse>;
  importImage(req: ImportRequest): Promise<string>;
  pull(req: PullRequest): Promise<void>;
  push(req: PushRequest): Promise<void>;
  /** Checks the names first (404), then streams the archive. */
  save(names: string[], signal: AbortSignal): Promise<Readable>;
  load(body: Readable, options: { quiet: boolean; emit: Emit; signal: AbortSignal }): Promise<void>;
  auth(config: Record<string, unknown>, signal: AbortSignal): Promise<AuthResponse>;
}

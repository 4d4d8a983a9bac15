// What the image router needs from the engine.
import type { Readable } from 'node:stream';
import type {
  AuthResponse,
  Emit,
  ImageImportRequest,
  ImagePullRequest,
  ImagePushRequest,
  ImageDeleteItem,
  ImageHistoryItem,
  ImageInspect,
  ImagePruneResponse,
  ImageSearchRequest,
  ImageSearchResult,
  ImageSummary,
} from '../../../api/image-types';
import type { Filters } from '../../http/query';

export interface ImagesBackend {
  list(options: { filters: Filters; all: boolean }): Promise<ImageSummary[]>;
  inspect(name: string): Promise<ImageInspect>;
  history(name: string): Promise<ImageHistoryItem[]>;
  tag(name: string, repo: string | undefined, tag: string | undefined): Promise<void>;
  remove(name: string, options: { force: boolean; noprune: boolean }): Promise<ImageDeleteItem[]>;
  prune(filters: Filters): Promise<ImagePruneResponse>;
  search(req: ImageSearchRequest): Promise<ImageSearchResult[]>;
  importImage(req: ImageImportRequest): Promise<string>;
  pull(req: ImagePullRequest): Promise<void>;
  push(req: ImagePushRequest): Promise<void>;
  /** Checks the names first (404), then streams the archive. */
  save(names: string[], signal: AbortSignal): Promise<Readable>;
  load(body: Readable, options: { quiet: boolean; emit: Emit; signal: AbortSignal }): Promise<void>;
  auth(config: Record<string, unknown>, signal: AbortSignal): Promise<AuthResponse>;
}

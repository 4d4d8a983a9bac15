// What the image router needs from the engine.
import type { Readable } from 'node:stream';
import type {
  AuthResponse,
  ImageDeleteItem,
  ImageHistoryItem,
  ImageInspect,
  ImagePruneResponse,
  ImageSummary,
  JsonMessage,
} from '../../../api/image-types';
import type { Filters } from '../../http/query';

export type Emit = (message: JsonMessage) => void;

export interface PullRequest {
  image: string;
  tag?: string;
  platform?: string;
  /** The X-Registry-Auth header as sent. */
  auth?: string;
  emit: Emit;
  signal: AbortSignal;
}

export interface PushRequest {
  name: string;
  tag?: string;
  auth?: string;
  emit: Emit;
  signal: AbortSignal;
}

export interface ImportRequest {
  body?: Readable;
  fromSrc: string;
  repo?: string;
  tag?: string;
  message?: string;
  changes: string[];
  platform?: string;
  emit: Emit;
  signal: AbortSignal;
}

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

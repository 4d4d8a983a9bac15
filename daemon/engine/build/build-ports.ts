// What the builder needs of the rest of the engine, kept narrow: images to start from, derive and
// name, and containers to run RUN steps in and copy files into. svcd's composition root wires
// these to the image and containers services (build-engine-ports.ts).
import type { ContainerCreateBody } from '../../api/container-types';
import type { Emit, OciImageConfig } from '../../api/image-types';
import type { BuildStepCommit } from '../images/image-commit';

export interface BuildImage {
  id: string;
  config: OciImageConfig;
}

export interface BuildImages {
  /** The local image a name or ID refers to, if any. */
  find(refOrId: string): Promise<BuildImage | undefined>;
  pull(ref: string, auth: string | undefined, emit: Emit, signal: AbortSignal): Promise<void>;
  /** The image `id` was built on, or '' (pulled, loaded and imported images have none). */
  parentOf(id: string): Promise<string>;
  /** A new image on `parent` (or from scratch) adding no layer: a metadata step's result. */
  derive(parent: string | undefined, config: OciImageConfig): Promise<string>;
  /**
   * A new image of the first `layers` layers of `source` (a cache-from image) with `config`:
   * the intermediate image a cache-from match stands for.
   */
  truncate(source: string, layers: number, config: OciImageConfig): Promise<string>;
  tag(id: string, name: string): Promise<void>;
}

export interface BuildContainers {
  create(body: ContainerCreateBody): Promise<string>;
  /** Starts it with its output followed, and resolves with its exit code; the signal kills it. */
  run(
    id: string,
    onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => void,
    signal: AbortSignal,
  ): Promise<number>;
  /** Its root filesystem, mounted on the host. */
  rootfs(id: string): Promise<string>;
  commit(id: string, step: BuildStepCommit): Promise<string>;
  remove(id: string): Promise<void>;
}

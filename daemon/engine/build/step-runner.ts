// A build step's run, as the classic builder's: its cache key, a hit in the local cache or in a
// cache-from image, else a metadata step (a new image config, no container) or a container step
// (a fresh container of the current image whose changes are committed as the step's image).
import type { BuildRequest } from '../../api/build-types';
import type { ContainerCreateBody } from '../../api/container-types';
import type { OciContainerConfig, OciImageConfig } from '../../api/image-types';
import { BuildCache } from './build-cache';
import type { BuildContainers, BuildImages } from './build-ports';
import type { ImageContext } from './image-context';
import type { Stage } from './instructions';

export interface StageState {
  stage: Stage;
  imageId: string | undefined;
  image: OciImageConfig;
  /** CMD was set in this stage: a later ENTRYPOINT keeps it. */
  cmdSet: boolean;
  /** The ARGs declared in this stage, with their values (undefined: declared without one). */
  args: Map<string, string | undefined>;
}

export interface StepResult {
  createdBy: string;
  config: OciContainerConfig;
  author?: string;
}

export interface StepRunnerDeps {
  images: BuildImages;
  containers: BuildContainers;
  cache: BuildCache;
}

export const short = (id: string) => id.replace(/^sha256:/, '').slice(0, 12);

export class StepRunner {
  constructor(
    private readonly deps: StepRunnerDeps,
    private readonly req: BuildRequest,
    private readonly images: ImageContext,
    private readonly out: (text: string) => void,
  ) {}

  cacheKey(state: StageState, result: StepResult, detail: unknown = null): string {
    return BuildCache.keyOf({
      parent: state.imageId,
      createdBy: result.createdBy,
      detail: [result.config, result.author ?? state.image.author ?? '', detail],
    });
  }

  /**
   * A cached result for the step. With cache-from images named, only those are sources, as in
   * Docker's classic builder: a local hit counts when it is an ancestor of one of them.
   */
  async cached(state: StageState, key: string, result: StepResult): Promise<boolean> {
    if (this.req.noCache) return false;
    let id = await this.deps.cache.get(key);
    if (id && !(await this.deps.images.find(id))) id = undefined;
    if (id && this.req.cacheFrom.length > 0 && !(await this.isCacheFromAncestor(id))) id = undefined;
    id ??= await this.fromCacheImages(state, result);
    if (!id) return false;
    this.out(' ---> Using cache\n');
    await this.adopt(state, id);
    return true;
  }

  private async isCacheFromAncestor(id: string): Promise<boolean> {
    for (const name of this.req.cacheFrom) {
      const source = await this.deps.images.find(name);
      // The parent chain of a built image is finite: each parent existed before its child.
      for (
        let p = source && (await this.deps.images.parentOf(source.id));
        p;
        p = await this.deps.images.parentOf(p)
      )
        if (p === id) return true;
    }
    return false;
  }

  /**
   * A cache-from image whose history continues the current image's with this step: the image
   * (or, when the step is not its last, an image of its layers up to the step).
   */
  private async fromCacheImages(state: StageState, result: StepResult): Promise<string | undefined> {
    const history = state.image.history ?? [];
    const diffIds = state.image.rootfs.diff_ids;
    for (const name of this.req.cacheFrom) {
      const source = await this.deps.images.find(name);
      if (!source) continue;
      const theirs = source.config.history ?? [];
      const next = theirs[history.length];
      const prefixMatches =
        theirs.length > history.length &&
        history.every(
          (h, i) => theirs[i].created_by === h.created_by && !!theirs[i].empty_layer === !!h.empty_layer,
        ) &&
        diffIds.every((d, i) => source.config.rootfs.diff_ids[i] === d);
      if (!prefixMatches || next.created_by !== result.createdBy) continue;
      if (theirs.length === history.length + 1) {
        if (JSON.stringify(source.config.config ?? {}) === JSON.stringify(result.config)) return source.id;
        continue;
      }
      const layers = diffIds.length + (next.empty_layer ? 0 : 1);
      return this.deps.images.truncate(source.id, layers, {
        ...source.config,
        config: result.config,
        rootfs: { type: 'layers', diff_ids: source.config.rootfs.diff_ids.slice(0, layers) },
        history: theirs.slice(0, history.length + 1),
      });
    }
    return undefined;
  }

  async adopt(state: StageState, id: string): Promise<void> {
    state.imageId = id;
    state.image = (await this.images.image(id)).config;
    this.out(` ---> ${short(id)}\n`);
  }

  async metadataStep(state: StageState, result: StepResult): Promise<void> {
    const key = this.cacheKey(state, result);
    if (await this.cached(state, key, result)) return;
    const created = new Date().toISOString();
    const image: OciImageConfig = {
      ...state.image,
      created,
      author: result.author ?? state.image.author ?? '',
      config: result.config,
      container_config: {
        ...result.config,
        Cmd: ['/bin/sh', '-c', result.createdBy.replace(/^\/bin\/sh -c /, '')],
      },
      history: [...(state.image.history ?? []), { created, created_by: result.createdBy, empty_layer: true }],
    };
    delete image.container;
    const id = await this.deps.images.derive(state.imageId, image);
    await this.deps.cache.set(key, id);
    await this.adopt(state, id);
  }

  /** An image to make a container from: FROM scratch has none until its first step. */
  private async baseForContainer(state: StageState): Promise<string> {
    state.imageId ??= await this.deps.images.derive(undefined, state.image);
    return state.imageId;
  }

  /**
   * Runs `work` with a fresh container of the current image, commits what it changed as the
   * step's image and removes the container (unless asked to keep it).
   */
  async containerStep(
    state: StageState,
    key: string,
    result: StepResult,
    body: Partial<ContainerCreateBody>,
    work: (id: string) => Promise<void>,
    announce: boolean,
  ): Promise<void> {
    const image = await this.baseForContainer(state);
    const id = await this.deps.containers.create({
      ...body,
      Image: image,
      Env: body.Env ?? state.image.config?.Env ?? [],
      User: body.User ?? state.image.config?.User ?? '',
      WorkingDir: state.image.config?.WorkingDir ?? '',
      Entrypoint: [],
      Cmd: body.Cmd ?? ['/bin/sh', '-c', result.createdBy.replace(/^\/bin\/sh -c /, '')],
      Labels: state.image.config?.Labels ?? {},
    });
    if (announce) this.out(` ---> Running in ${short(id)}\n`);
    let committed = false;
    try {
      await work(id);
      this.req.signal.throwIfAborted();
      const imageId = await this.deps.containers.commit(id, {
        ...result,
        author: result.author ?? state.image.author,
      });
      committed = true;
      await this.deps.cache.set(key, imageId);
      if (this.req.rm || this.req.forceRm) {
        await this.deps.containers.remove(id);
        if (announce) this.out(`Removing intermediate container ${short(id)}\n`);
      }
      await this.adopt(state, imageId);
    } finally {
      const cancelled = this.req.signal.aborted;
      if (!committed && (this.req.forceRm || cancelled))
        await this.deps.containers.remove(id).catch(() => undefined);
    }
  }

  /** A step that writes into the image's files without running anything (WORKDIR, COPY, ADD). */
  async filesystemStep(
    state: StageState,
    result: StepResult,
    detail: unknown,
    write: (rootfs: string) => Promise<void>,
  ): Promise<void> {
    const key = this.cacheKey(state, result, detail);
    if (await this.cached(state, key, result)) return;
    const work = async (id: string) => write(await this.deps.containers.rootfs(id));
    await this.containerStep(state, key, result, {}, work, false);
  }
}

// One build, as Docker's classic builder runs it: the stages the target needs, in order, each
// instruction a step that is either found in the cache or run. Metadata instructions make a new
// image config without a container; RUN runs in a container whose changes are committed; COPY,
// ADD and WORKDIR write into a container's root filesystem that is committed unstarted.
import { StringDecoder } from 'node:string_decoder';
import { posix } from 'node:path';
import type { BuildRequest } from '../../api/build-types';
import type { ContainerCreateBody } from '../../api/container-types';
import { InvalidParameterError, NotFoundError } from '../../api/errors';
import type { OciContainerConfig, OciImageConfig } from '../../api/image-types';
import { BuildStepError } from '../../api/build-types';
import { parseSignal } from '../../runtime/oci-spec/signals';
import { formatPlatform, parsePlatform, DEFAULT_PLATFORM } from '../images/distribution/platform';
import { parseImageAndTag } from '../shared/reference';
import { BuildCache } from './build-cache';
import type { BuildContext } from './build-context';
import type { BuildContainers, BuildImages } from './build-ports';
import {
  contextSources,
  copySources,
  ensureDirectory,
  hashSources,
  resolveOwner,
  rootfsSources,
  type CopySource,
} from './copy-files';
import type { BuildPlan, Instruction, InstructionOf, Stage } from './instructions';
import { triggerInstruction } from './instructions';
import { envMap, ShellLexer } from './shell-lexer';
import type { EscapeToken } from './svcfile-parser';
import { fetchRemoteFile } from './remote-file';

/** Build args a build may pass without an ARG for them; they stay out of the history. */
const predefinedArgs = new Set(
  ['HTTP_PROXY', 'HTTPS_PROXY', 'FTP_PROXY', 'NO_PROXY', 'ALL_PROXY'].flatMap((n) => [n, n.toLowerCase()]),
);
const defaultShell = ['/bin/sh', '-c'];

interface StageState {
  stage: Stage;
  imageId: string | undefined;
  image: OciImageConfig;
  /** CMD was set in this stage: a later ENTRYPOINT keeps it. */
  cmdSet: boolean;
  /** The ARGs declared in this stage, with their values (undefined: declared without one). */
  args: Map<string, string | undefined>;
}

interface StepResult {
  createdBy: string;
  config: OciContainerConfig;
  author?: string;
}

export interface BuilderDeps {
  images: BuildImages;
  containers: BuildContainers;
  cache: BuildCache;
}

const short = (id: string) => id.replace(/^sha256:/, '').slice(0, 12);
const nop = (text: string) => `/bin/sh -c #(nop)  ${text}`;

function emptyImage(): OciImageConfig {
  return {
    architecture: DEFAULT_PLATFORM.architecture,
    os: DEFAULT_PLATFORM.os,
    config: { Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'] },
    rootfs: { type: 'layers', diff_ids: [] },
    history: [],
  };
}

function setEnv(env: string[] | null | undefined, key: string, value: string): string[] {
  const list = [...(env ?? [])];
  const at = list.findIndex((e) => e === key || e.startsWith(`${key}=`));
  if (at >= 0) list[at] = `${key}=${value}`;
  else list.push(`${key}=${value}`);
  return list;
}

/** `80`, `80/udp`, `8000-8002/tcp` as ExposedPorts keys. */
function exposedPorts(spec: string): string[] {
  const m = /^(?:(?:[^:]*:)?\d*:)?(\d+)(?:-(\d+))?(?:\/(tcp|udp|sctp))?$/i.exec(spec);
  if (!m) throw new InvalidParameterError(`Invalid containerPort: ${spec}`);
  const first = Number(m[1]);
  const last = m[2] ? Number(m[2]) : first;
  if (last < first || last > 65535)
    throw new InvalidParameterError(`Invalid range specified for the Port: ${spec}`);
  const proto = (m[3] ?? 'tcp').toLowerCase();
  return Array.from({ length: last - first + 1 }, (_, i) => `${first + i}/${proto}`);
}

export class Builder {
  private readonly lexer: ShellLexer;
  private step = 0;
  private total = 0;
  private readonly results = new Map<number, string | undefined>();
  private readonly usedArgs = new Set<string>();
  /** Containers made for `COPY --from=<image>`, removed at the end. */
  private readonly sourceContainers = new Map<string, string>();

  constructor(
    private readonly deps: BuilderDeps,
    private readonly req: BuildRequest,
    private readonly plan: BuildPlan,
    private readonly context: BuildContext,
    escape: EscapeToken,
  ) {
    this.lexer = new ShellLexer(escape);
  }

  private out(text: string): void {
    if (!this.req.quiet) this.req.emit({ stream: text });
  }

  /** The stage the target names (the last one by default) and the ones it needs, in order. */
  private neededStages(): Stage[] {
    const stages = this.plan.stages;
    let target = stages[stages.length - 1];
    if (this.req.target) {
      const found = stages.find((s) => s.name === this.req.target!.toLowerCase());
      if (!found)
        throw new InvalidParameterError(`failed to reach build target ${this.req.target} in Dockerfile`);
      target = found;
    }
    const needed = new Set<number>();
    const visit = (stage: Stage) => {
      if (needed.has(stage.index)) return;
      needed.add(stage.index);
      const refs = [
        stage.baseName,
        ...stage.instructions.flatMap((i) => (i.kind === 'copy' && i.from ? [i.from] : [])),
      ];
      for (const ref of refs) {
        const named = this.stageByName(ref, stage.index);
        if (named) visit(named);
      }
    };
    visit(target);
    return stages.filter((s) => needed.has(s.index));
  }

  /** An earlier stage a FROM or `--from` names, by name or index. */
  private stageByName(name: string, before: number): Stage | undefined {
    const lower = name.toLowerCase();
    const byName = this.plan.stages.find((s) => s.name === lower && s.index < before);
    if (byName) return byName;
    if (/^\d+$/.test(name) && Number(name) < before) return this.plan.stages[Number(name)];
    return undefined;
  }

  async run(): Promise<string> {
    if (this.req.platform) this.checkPlatform(this.req.platform);
    const stages = this.neededStages();
    const target = stages[stages.length - 1];
    if (Object.keys(this.req.labels).length > 0) {
      const pairs = Object.entries(this.req.labels).map(([key, value]) => ({ key, value }));
      target.instructions.push({
        kind: 'label',
        pairs,
        expand: false,
        line: 0,
        original: `LABEL ${pairs.map((p) => `${JSON.stringify(p.key)}=${JSON.stringify(p.value)}`).join(' ')}`,
      });
    }
    this.total = stages.reduce((n, s) => n + 1 + s.instructions.length, 0);
    let id: string | undefined;
    try {
      for (const stage of stages) {
        id = await this.buildStage(stage);
        this.results.set(stage.index, id);
      }
    } finally {
      for (const container of this.sourceContainers.values())
        await this.deps.containers.remove(container).catch(() => undefined);
    }
    if (!id) throw new InvalidParameterError('No image was generated. Is your Dockerfile empty?');
    const unused = Object.keys(this.req.buildArgs).filter(
      (k) => !this.usedArgs.has(k) && !predefinedArgs.has(k),
    );
    if (unused.length > 0)
      this.out(`[Warning] One or more build-args [${unused.sort().join(' ')}] were not consumed\n`);
    return id;
  }

  private checkPlatform(platform: string): void {
    const wanted = formatPlatform(parsePlatform(platform));
    if (wanted !== formatPlatform(DEFAULT_PLATFORM)) {
      throw new InvalidParameterError(
        `platform ${wanted} is not supported: svcd builds for ${formatPlatform(DEFAULT_PLATFORM)}, the platform of this machine`,
      );
    }
  }

  private header(original: string): void {
    this.step++;
    this.out(`Step ${this.step}/${this.total} : ${original}\n`);
  }

  /** Meta ARGs (before the first FROM) with the build's values: what FROM lines may use. */
  private metaArgs(): Map<string, string> {
    const map = new Map<string, string>();
    for (const arg of this.plan.metaArgs) {
      for (const { key, value } of arg.args) {
        const given = this.req.buildArgs[key];
        const v = given ?? (value !== undefined ? this.lexer.processWord(value, map) : undefined);
        if (v !== undefined) map.set(key, v);
        if (given !== undefined) this.usedArgs.add(key);
      }
    }
    return map;
  }

  private async buildStage(stage: Stage): Promise<string | undefined> {
    this.header(stage.original);
    const state = await this.fromStage(stage);
    const triggers = state.image.config?.OnBuild ?? [];
    if (state.image.config)
      state.image = { ...state.image, config: { ...state.image.config, OnBuild: null } };
    if (triggers.length > 0) {
      this.out(`# Executing ${triggers.length} build trigger${triggers.length === 1 ? '' : 's'}\n`);
      for (const expression of triggers) {
        await this.execute(state, triggerInstruction(expression, this.lexer.escape));
      }
    }
    for (const instruction of stage.instructions) {
      this.header(instruction.original);
      await this.execute(state, instruction);
    }
    return state.imageId;
  }

  private async fromStage(stage: Stage): Promise<StageState> {
    const meta = this.metaArgs();
    const name = this.lexer.processWord(stage.baseName, meta);
    if (stage.platform) this.checkPlatform(this.lexer.processWord(stage.platform, meta));
    const state: StageState = {
      stage,
      imageId: undefined,
      image: emptyImage(),
      cmdSet: false,
      args: new Map(),
    };
    const earlier = this.stageByName(name, stage.index);
    if (earlier) {
      state.imageId = this.results.get(earlier.index);
    } else if (name.toLowerCase() !== 'scratch') {
      state.imageId = (await this.baseImage(name)).id;
    }
    if (state.imageId) {
      state.image = (await this.image(state.imageId)).config;
      this.out(` ---> ${short(state.imageId)}\n`);
    }
    return state;
  }

  private async image(id: string) {
    const image = await this.deps.images.find(id);
    if (!image) throw new NotFoundError(`No such image: ${id}`);
    return image;
  }

  private async baseImage(name: string) {
    const local = this.req.pull ? undefined : await this.deps.images.find(name);
    if (local) return local;
    const ref = parseImageAndTag(name);
    await this.deps.images.pull(
      name,
      this.authFor(ref.domain),
      this.req.quiet ? () => undefined : this.req.emit,
      this.req.signal,
    );
    return this.image(name);
  }

  /** The X-Registry-Config entry for a registry, as an X-Registry-Auth value. */
  private authFor(domain: string): string | undefined {
    if (!this.req.registryConfig) return undefined;
    let configs: Record<string, unknown>;
    try {
      configs = JSON.parse(Buffer.from(this.req.registryConfig, 'base64url').toString('utf8')) as Record<
        string,
        unknown
      >;
    } catch {
      throw new InvalidParameterError('invalid X-Registry-Config header: not base64-encoded JSON');
    }
    const hub = domain === 'docker.io';
    const key = Object.keys(configs ?? {}).find((k) => {
      const host = k.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
      return host === domain || (hub && (host === 'index.docker.io' || host === 'registry-1.docker.io'));
    });
    return key ? Buffer.from(JSON.stringify(configs[key])).toString('base64url') : undefined;
  }

  /** The variables a step sees: its stage's ARG values, overridden by ENV. */
  private variables(state: StageState): Map<string, string> {
    const map = new Map<string, string>();
    for (const [k, v] of state.args) if (v !== undefined) map.set(k, v);
    for (const [k, v] of envMap(state.image.config?.Env ?? [])) map.set(k, v);
    return map;
  }

  private word(state: StageState, text: string): string {
    return this.lexer.processWord(text, this.variables(state));
  }

  private shell(state: StageState): string[] {
    const shell = state.image.config?.Shell;
    return shell && shell.length > 0 ? shell : defaultShell;
  }

  private async execute(state: StageState, ins: Instruction): Promise<void> {
    const config: OciContainerConfig = { ...(state.image.config ?? {}) };
    const meta = (createdBy: string, author?: string) =>
      this.metadataStep(state, { createdBy, config, author });
    switch (ins.kind) {
      case 'env': {
        const vars = this.variables(state);
        const pairs = ins.pairs.map((p) => [
          this.lexer.processWord(p.key, vars),
          this.lexer.processWord(p.value, vars),
        ]);
        for (const [k, v] of pairs) config.Env = setEnv(config.Env, k, v);
        return meta(nop(`ENV ${pairs.map(([k, v]) => `${k}=${v}`).join(' ')}`));
      }
      case 'label': {
        const vars = this.variables(state);
        const pairs = ins.pairs.map((p) =>
          ins.expand
            ? [this.lexer.processWord(p.key, vars), this.lexer.processWord(p.value, vars)]
            : [p.key, p.value],
        );
        config.Labels = { ...(config.Labels ?? {}), ...Object.fromEntries(pairs) };
        return meta(nop(`LABEL ${pairs.map(([k, v]) => `${k}=${v}`).join(' ')}`));
      }
      case 'maintainer':
        return meta(nop(`MAINTAINER ${ins.maintainer}`), ins.maintainer);
      case 'expose': {
        const ports = ins.ports
          .flatMap((p) => this.lexer.processWords(p, this.variables(state)))
          .flatMap(exposedPorts);
        config.ExposedPorts = { ...(config.ExposedPorts ?? {}) };
        for (const p of ports) config.ExposedPorts[p] = {};
        return meta(nop(`EXPOSE ${ports.join(' ')}`));
      }
      case 'user':
        config.User = this.word(state, ins.user);
        return meta(nop(`USER ${config.User}`));
      case 'volume': {
        const volumes = ins.volumes.map((v) => this.word(state, v));
        config.Volumes = { ...(config.Volumes ?? {}) };
        for (const v of volumes) {
          if (v === '') throw new InvalidParameterError('VOLUME specified can not be an empty string');
          config.Volumes[v] = {};
        }
        return meta(nop(`VOLUME [${volumes.join(' ')}]`));
      }
      case 'stopsignal': {
        const signal = this.word(state, ins.signal);
        parseSignal(signal);
        config.StopSignal = signal;
        return meta(nop(`STOPSIGNAL ${signal}`));
      }
      case 'healthcheck':
        config.Healthcheck = ins.health;
        return meta(nop(`HEALTHCHECK &{${JSON.stringify(ins.health.Test)}}`));
      case 'shell':
        config.Shell = ins.shell;
        return meta(nop(`SHELL ${JSON.stringify(ins.shell)}`));
      case 'cmd':
        config.Cmd = ins.prependShell ? [...this.shell(state), ...ins.command] : ins.command;
        state.cmdSet = true;
        return meta(nop(`CMD ${JSON.stringify(config.Cmd)}`));
      case 'entrypoint':
        config.Entrypoint =
          ins.command === null
            ? null
            : ins.prependShell
              ? [...this.shell(state), ...ins.command]
              : ins.command;
        if (!state.cmdSet) config.Cmd = null;
        return meta(nop(`ENTRYPOINT ${JSON.stringify(config.Entrypoint ?? [])}`));
      case 'onbuild':
        config.OnBuild = [...(config.OnBuild ?? []), ins.expression];
        return meta(nop(`ONBUILD ${ins.expression}`));
      case 'arg':
        return this.arg(state, ins, config);
      case 'workdir':
        return this.workdir(state, ins, config);
      case 'run':
        return this.runStep(state, ins, config);
      case 'copy':
      case 'add':
        return this.copyStep(state, ins, config);
    }
  }

  private async arg(state: StageState, ins: InstructionOf<'arg'>, config: OciContainerConfig): Promise<void> {
    const meta = this.metaArgs();
    const words: string[] = [];
    for (const { key, value } of ins.args) {
      const given = this.req.buildArgs[key];
      const fallback = value !== undefined ? this.word(state, value) : meta.get(key);
      state.args.set(key, given ?? fallback);
      this.usedArgs.add(key);
      words.push(value !== undefined ? `${key}=${value}` : key);
    }
    return this.metadataStep(state, { createdBy: nop(`ARG ${words.join(' ')}`), config });
  }

  /** The ARG values a RUN sees as environment, and how its history line records them. */
  private runArgs(state: StageState): { env: string[]; prefix: string } {
    const declared = [...state.args].filter(([, v]) => v !== undefined) as Array<[string, string]>;
    const proxies = Object.entries(this.req.buildArgs).filter(
      ([k, v]) => predefinedArgs.has(k) && v !== null && !state.args.has(k),
    ) as Array<[string, string]>;
    const env = [...declared, ...proxies].map(([k, v]) => `${k}=${v}`);
    const prefix =
      declared.length > 0 ? `|${declared.length} ${declared.map(([k, v]) => `${k}=${v}`).join(' ')} ` : '';
    return { env, prefix };
  }

  private cacheKey(state: StageState, result: StepResult, detail: unknown = null): string {
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
  private async cached(state: StageState, key: string, result: StepResult): Promise<boolean> {
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

  private async adopt(state: StageState, id: string): Promise<void> {
    state.imageId = id;
    state.image = (await this.image(id)).config;
    this.out(` ---> ${short(id)}\n`);
  }

  private async metadataStep(state: StageState, result: StepResult): Promise<void> {
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
  private async containerStep(
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

  private async workdir(
    state: StageState,
    ins: InstructionOf<'workdir'>,
    config: OciContainerConfig,
  ): Promise<void> {
    const dir = posix.resolve(config.WorkingDir || '/', this.word(state, ins.path));
    config.WorkingDir = dir;
    const result = { createdBy: nop(`WORKDIR ${dir}`), config };
    await this.filesystemStep(state, result, null, async (rootfs) => {
      await ensureDirectory(rootfs, dir);
    });
  }

  /** A step that writes into the image's files without running anything (WORKDIR, COPY, ADD). */
  private async filesystemStep(
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

  private async runStep(
    state: StageState,
    ins: InstructionOf<'run' | 'cmd'>,
    config: OciContainerConfig,
  ): Promise<void> {
    const command = ins.prependShell ? [...this.shell(state), ...ins.command] : ins.command;
    const { env, prefix } = this.runArgs(state);
    const result = { createdBy: `${prefix}${command.join(' ')}`, config };
    const key = this.cacheKey(state, result);
    if (await this.cached(state, key, result)) return;
    const run = this.req.run;
    const body: Partial<ContainerCreateBody> = {
      Cmd: command,
      Env: [...(config.Env ?? []), ...env],
      AttachStdout: true,
      AttachStderr: true,
      HostConfig: {
        NetworkMode: run.networkMode || 'default',
        Memory: run.memory,
        MemorySwap: run.memorySwap,
        CpuShares: run.cpuShares,
        CpusetCpus: run.cpuSetCpus,
        CpuPeriod: run.cpuPeriod,
        CpuQuota: run.cpuQuota,
        ShmSize: run.shmSize,
        ExtraHosts: run.extraHosts,
      },
    };
    await this.containerStep(
      state,
      key,
      result,
      body,
      async (id) => {
        const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
        const code = await this.deps.containers.run(
          id,
          (stream, chunk) => {
            const text = decoders[stream].write(chunk);
            // The classic builder's colours: stderr in bright red, so a terminal tells it apart.
            if (text) this.out(stream === 'stderr' ? `\x1b[91m${text}\x1b[0m` : text);
          },
          this.req.signal,
        );
        if (code !== 0) {
          throw new BuildStepError(
            `The command '${command.join(' ')}' returned a non-zero code: ${code}`,
            code,
          );
        }
      },
      true,
    );
  }

  private async copyStep(
    state: StageState,
    ins: InstructionOf<'copy' | 'add'>,
    config: OciContainerConfig,
  ): Promise<void> {
    const vars = this.variables(state);
    const sourcesWritten = ins.sources.map((s) => this.lexer.processWord(s, vars));
    const destWritten = this.lexer.processWord(ins.dest, vars);
    const chown = this.lexer.processWord(ins.chown, vars);
    const dest =
      posix.resolve(config.WorkingDir || '/', destWritten) +
      (destWritten.endsWith('/') && destWritten !== '/' ? '/' : '');
    const name = ins.kind.toUpperCase();
    const remotes = sourcesWritten.filter((s) => /^https?:\/\//i.test(s));
    if (remotes.length > 0 && ins.kind === 'copy')
      throw new InvalidParameterError(`COPY failed: source can't be a URL for COPY`);
    let sources: CopySource[];
    const cleanups: Array<() => Promise<void>> = [];
    try {
      try {
        sources = await this.copySources(
          ins,
          sourcesWritten.filter((s) => !remotes.includes(s)),
        );
        for (const url of remotes) {
          const file = await fetchRemoteFile(url, this.context.root, this.req.signal);
          cleanups.push(file.remove);
          sources.push(file.source);
        }
      } catch (err) {
        if (err instanceof InvalidParameterError)
          throw new InvalidParameterError(`${name} failed: ${err.message}`);
        throw err;
      }
      const destIsDir = dest.endsWith('/') || sources.length > 1;
      if (sources.length > 1 && !dest.endsWith('/') && !destWritten.endsWith('/')) {
        throw new InvalidParameterError(
          `When using ${name} with more than one source file, the destination must be a directory and end with a /`,
        );
      }
      const hash = await hashSources(sources);
      const kind = sources.length > 1 ? 'multi' : sources[0].stats.isDirectory() ? 'dir' : 'file';
      const result = { createdBy: nop(`${name} ${kind}:${hash} in ${dest} `), config };
      await this.filesystemStep(state, result, { chown, from: ins.from }, async (rootfs) => {
        const owner = await resolveOwner(rootfs, chown);
        await copySources(sources, {
          rootfs,
          dest: dest.replace(/\/$/, '') || '/',
          destIsDir,
          owner,
          extractArchives: ins.kind === 'add',
        });
      });
    } finally {
      for (const cleanup of cleanups) await cleanup().catch(() => undefined);
    }
  }

  private async copySources(ins: InstructionOf<'copy' | 'add'>, written: string[]): Promise<CopySource[]> {
    if (written.length === 0) return [];
    if (!ins.from) return contextSources(this.context, written);
    const stage = this.stageByName(ins.from, Number.MAX_SAFE_INTEGER);
    let image: string | undefined;
    if (stage) {
      image = this.results.get(stage.index);
      if (!image) throw new InvalidParameterError(`stage ${ins.from} produced no image to copy from`);
    } else {
      image = (await this.baseImage(ins.from)).id;
    }
    let container = this.sourceContainers.get(image);
    if (!container) {
      container = await this.deps.containers.create({
        Image: image,
        Cmd: ['/bin/sh', '-c', `#(nop) COPY --from=${ins.from}`],
        Entrypoint: [],
      });
      this.sourceContainers.set(image, container);
    }
    return rootfsSources(await this.deps.containers.rootfs(container), written);
  }
}

// One build, as Docker's classic builder runs it: the stages the target needs, in order, each
// instruction a step that is either found in the cache or run (step-runner.ts). Metadata
// instructions make a new image config without a container (dispatchers.ts); RUN runs in a
// container whose changes are committed; COPY, ADD and WORKDIR write into a container's root
// filesystem that is committed unstarted. Base images come from the image context.
import { StringDecoder } from 'node:string_decoder';
import { posix } from 'node:path';
import type { BuildRequest } from '../../api/build-types';
import type { ContainerCreateBody } from '../../api/container-types';
import { InvalidParameterError } from '../../api/errors';
import type { OciContainerConfig, OciImageConfig } from '../../api/image-types';
import { BuildStepError } from '../../api/build-types';
import { formatPlatform, parsePlatform, DEFAULT_PLATFORM } from '../images/distribution/platform';
import type { BuildContext } from './build-context';
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
import { dispatchMetadata, nop, shellOf } from './dispatchers';
import { ImageContext } from './image-context';
import { short, type StageState, StepRunner, type StepRunnerDeps } from './step-runner';

/** Build args a build may pass without an ARG for them; they stay out of the history. */
const predefinedArgs = new Set(
  ['HTTP_PROXY', 'HTTPS_PROXY', 'FTP_PROXY', 'NO_PROXY', 'ALL_PROXY'].flatMap((n) => [n, n.toLowerCase()]),
);

export type BuilderDeps = StepRunnerDeps;

function emptyImage(): OciImageConfig {
  return {
    architecture: DEFAULT_PLATFORM.architecture,
    os: DEFAULT_PLATFORM.os,
    config: { Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'] },
    rootfs: { type: 'layers', diff_ids: [] },
    history: [],
  };
}

export class Builder {
  private readonly lexer: ShellLexer;
  private step = 0;
  private total = 0;
  private readonly results = new Map<number, string | undefined>();
  private readonly usedArgs = new Set<string>();
  /** Containers made for `COPY --from=<image>`, removed at the end. */
  private readonly sourceContainers = new Map<string, string>();
  private readonly images: ImageContext;
  private readonly steps: StepRunner;

  constructor(
    private readonly deps: BuilderDeps,
    private readonly req: BuildRequest,
    private readonly plan: BuildPlan,
    private readonly context: BuildContext,
    escape: EscapeToken,
  ) {
    this.lexer = new ShellLexer(escape);
    this.images = new ImageContext(deps.images, req);
    this.steps = new StepRunner(deps, req, this.images, (text) => this.out(text));
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
      state.imageId = (await this.images.baseImage(name)).id;
    }
    if (state.imageId) {
      state.image = (await this.images.image(state.imageId)).config;
      this.out(` ---> ${short(state.imageId)}\n`);
    }
    return state;
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

  private async execute(state: StageState, ins: Instruction): Promise<void> {
    const config: OciContainerConfig = { ...(state.image.config ?? {}) };
    switch (ins.kind) {
      case 'arg':
        return this.arg(state, ins, config);
      case 'workdir':
        return this.workdir(state, ins, config);
      case 'run':
        return this.runStep(state, ins, config);
      case 'copy':
      case 'add':
        return this.copyStep(state, ins, config);
      default: {
        const words = {
          lexer: this.lexer,
          variables: () => this.variables(state),
          word: (text: string) => this.word(state, text),
        };
        return this.steps.metadataStep(state, { ...dispatchMetadata(state, ins, config, words), config });
      }
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
    return this.steps.metadataStep(state, { createdBy: nop(`ARG ${words.join(' ')}`), config });
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

  private async workdir(
    state: StageState,
    ins: InstructionOf<'workdir'>,
    config: OciContainerConfig,
  ): Promise<void> {
    const dir = posix.resolve(config.WorkingDir || '/', this.word(state, ins.path));
    config.WorkingDir = dir;
    const result = { createdBy: nop(`WORKDIR ${dir}`), config };
    await this.steps.filesystemStep(state, result, null, async (rootfs) => {
      await ensureDirectory(rootfs, dir);
    });
  }

  private async runStep(
    state: StageState,
    ins: InstructionOf<'run' | 'cmd'>,
    config: OciContainerConfig,
  ): Promise<void> {
    const command = ins.prependShell ? [...shellOf(state), ...ins.command] : ins.command;
    const { env, prefix } = this.runArgs(state);
    const result = { createdBy: `${prefix}${command.join(' ')}`, config };
    const key = this.steps.cacheKey(state, result);
    if (await this.steps.cached(state, key, result)) return;
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
    await this.steps.containerStep(
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
      await this.steps.filesystemStep(state, result, { chown, from: ins.from }, async (rootfs) => {
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
      image = (await this.images.baseImage(ins.from)).id;
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

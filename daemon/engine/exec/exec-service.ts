// Exec: processes added to a running container (POST /containers/{id}/exec, /exec/{id}/start,
// resize and inspect). Instances live in memory, as dockerd keeps them, until their container goes.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { ConflictError, InvalidParameterError, NotFoundError, SystemError } from '../../api/errors';
import { ociCapabilities, resolveCapabilities } from '../../runtime/oci-spec/capabilities';
import type { OciSpec } from '../../runtime/oci-spec/oci-types';
import { resolveUser } from '../../runtime/oci-spec/process-user';
import type { Container } from '../containers/container';
import { isRunning } from '../containers/container-state';
import type { EngineContext } from '../containers/engine-context';
import { ExecInstance, type FifoDirs } from './exec-instance';
import type { ExecCreateBody, ExecCreateOptions } from '../../api/exec-types';
import { replaceOrAppendEnv } from '../../runtime/oci-spec/process-env';
import type { ShimTask } from '../../runtime/containerd/shim-tasks';

const spareFifoDirs = 4;

interface TaskOfRun {
  spec: OciSpec;
  shim: ShimTask;
}

/** The part of the containers engine exec works with. */
export type ExecContext = Pick<EngineContext, 'registry' | 'client' | 'shims' | 'paths' | 'events' | 'host'>;

export class ExecService {
  private readonly execs = new Map<string, ExecInstance>();
  /** Per container: FIFO directories of finished execs, ready for the next. */
  private readonly spare = new Map<string, { run: number; dirs: string[] }>();
  /** Per container: the process spec of its current run (execs start from it) and its shim. */
  private readonly runs = new Map<string, { run: number; task: Promise<TaskOfRun> }>();

  constructor(private readonly ctx: ExecContext) {}

  /** Exec instances of the container not yet finished (inspect's ExecIDs). */
  idsOf(containerId: string): string[] {
    return [...this.execs.values()]
      .filter((e) => e.settings.container.id === containerId && e.exitCode === null)
      .map((e) => e.id);
  }

  private checkRunning(container: Container, conflict: boolean): void {
    const s = container.record.State;
    const fail = (message: string) => {
      throw conflict ? new ConflictError(message) : new SystemError(message);
    };
    if (!isRunning(s)) fail(`Container ${container.id} is not running`);
    if (s.Paused) fail(`Container ${container.id} is paused, unpause the container before exec`);
    if (s.Restarting) fail(`Container ${container.id} is restarting, wait until the container is running`);
  }

  async create(ref: string, body: ExecCreateBody, options: ExecCreateOptions): Promise<{ Id: string }> {
    const container = this.ctx.registry.get(ref);
    const cmd = typeof body.Cmd === 'string' ? [body.Cmd] : (body.Cmd ?? []);
    if (cmd.length === 0) throw new InvalidParameterError('No exec command specified');
    this.checkRunning(container, options.stateConflict);
    const { spec, shim } = await this.taskOf(container);
    const record = container.record;
    const tty = !!body.Tty;
    const env = replaceOrAppendEnv(
      tty ? replaceOrAppendEnv(spec.process.env, ['TERM=xterm']) : spec.process.env,
      options.env ? (body.Env ?? []) : [],
    );
    const caps = body.Privileged
      ? ociCapabilities(resolveCapabilities({ privileged: true, available: this.ctx.host.capabilities }))
      : spec.process.capabilities;
    const id = randomBytes(32).toString('hex');
    const exec = new ExecInstance(
      this.ctx,
      {
        id,
        container,
        shim,
        process: {
          ...spec.process,
          args: cmd,
          terminal: tty,
          env,
          cwd: (options.workingDir && body.WorkingDir) || spec.process.cwd,
          user: body.User
            ? resolveUser(record.Rootfs, body.User, record.HostConfig.GroupAdd)
            : spec.process.user,
          capabilities: caps,
        },
        processConfig: {
          tty,
          entrypoint: cmd[0],
          arguments: cmd.slice(1),
          privileged: !!body.Privileged,
          // dockerd leaves `user` out when none was asked.
          ...(body.User ? { user: body.User } : {}),
        },
        attachStdin: !!body.AttachStdin,
        attachStdout: !!body.AttachStdout,
        attachStderr: !!body.AttachStderr,
        detachKeys: body.DetachKeys ?? '',
      },
      this.fifoDirsOf(container),
    );
    this.execs.set(id, exec);
    this.forgetRemoved();
    exec.registerEarly();
    exec.announceCreate();
    return { Id: id };
  }

  private taskOf(container: Container): Promise<TaskOfRun> {
    const cached = this.runs.get(container.id);
    if (cached?.run === container.runStartedAt) return cached.task;
    const task = Promise.all([
      this.ctx.client.containers.get(container.id),
      this.ctx.shims.of(container.id),
    ]).then(([c, shim]) => ({ spec: c.spec as OciSpec, shim }));
    const entry = { run: container.runStartedAt, task };
    this.runs.set(container.id, entry);
    // A failed look-up is asked again by the next exec.
    task.catch(() => this.runs.get(container.id) === entry && this.runs.delete(container.id));
    return task;
  }

  /**
   * FIFO directories are reused only within the run of the container they served: a shim of an
   * earlier run may still hold an exec's stdin open for reading while it goes down, and would
   * take the keystrokes meant for a new exec (seen as a terminal that reconnected after a
   * restart and lost most of what was typed).
   */
  private fifoDirsOf(container: Container): FifoDirs {
    const run = container.runStartedAt;
    const drop = (dir: string) => void rm(dir, { recursive: true, force: true }).catch(() => undefined);
    /** The spare directories of the container's current run; those of an earlier run go. */
    const spareOfRun = () => {
      const kept = this.spare.get(container.id);
      if (kept?.run === container.runStartedAt) return kept.dirs;
      kept?.dirs.forEach(drop);
      const fresh = { run: container.runStartedAt, dirs: [] as string[] };
      this.spare.set(container.id, fresh);
      return fresh.dirs;
    };
    return {
      take: () => spareOfRun().pop(),
      give: (dir) => {
        const current = run === container.runStartedAt && isRunning(container.record.State);
        if (container.removed || !current) return drop(dir);
        const dirs = spareOfRun();
        if (dirs.length >= spareFifoDirs) return drop(dir);
        dirs.push(dir);
      },
    };
  }

  /** Drops what is kept for containers that are gone (their directories went with them). */
  private forgetRemoved(): void {
    for (const [id, exec] of this.execs) {
      if (!exec.settings.container.removed) continue;
      this.execs.delete(id);
      this.spare.delete(exec.settings.container.id);
      this.runs.delete(exec.settings.container.id);
    }
  }

  get(id: string): ExecInstance {
    const exec = this.execs.get(id);
    if (exec && exec.settings.container.removed) this.execs.delete(id);
    else if (exec) return exec;
    throw new NotFoundError(`No such exec instance: ${id}`);
  }

  /** Throws what a start would refuse with, so a caller can answer it before streaming. */
  checkStart(id: string, stateConflict: boolean): ExecInstance {
    const exec = this.get(id);
    if (exec.running) throw new ConflictError(`Error: Exec command ${id} is already running`);
    if (exec.started) throw new ConflictError(`Error: Exec command ${id} has already run`);
    this.checkRunning(exec.settings.container, stateConflict);
    return exec;
  }

  /** Starts the process; the instance is the session (its output, its stdin). */
  async start(id: string, detach: boolean, stateConflict: boolean): Promise<ExecInstance> {
    const exec = this.checkStart(id, stateConflict);
    await exec.start(detach);
    return exec;
  }

  async resize(id: string, height: number, width: number): Promise<void> {
    const exec = this.get(id);
    if (!exec.tty) throw new InvalidParameterError(`exec ${id} has no terminal to resize`);
    if (exec.started && !exec.running) throw new ConflictError(`Exec ${id} is not running`);
    await exec.resize(height, width);
  }

  inspect(id: string, withPid: boolean) {
    return this.get(id).inspect(withPid);
  }
}

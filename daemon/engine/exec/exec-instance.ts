// One exec instance: what was asked at create, and once started its process's stdio (FIFOs read
// through ContainerIO), its exit and the client streams attached to it.
import { EventEmitter } from 'node:events';
import { SystemError } from '../../api/errors';
import { runtimeMessage } from '../../runtime/containerd/grpc-errors';
import type { ShimTask } from '../../runtime/containerd/shim-tasks';
import type { OciProcess } from '../../runtime/oci-spec/oci-types';
import type { Container } from '../containers/container';
import { ContainerIO, type StdStream } from '../containers/container-io';
import { type EngineContext, publishContainerEvent } from '../containers/engine-context';
import type { ExecInspect, ExecProcessConfig } from '../../api/exec-types';

/** Directories of FIFOs a finished exec leaves for the next one (making FIFOs costs a process). */
export interface FifoDirs {
  take(): string | undefined;
  give(dir: string): void;
}

export interface ExecSettings {
  id: string;
  container: Container;
  /** The shim of the container's task in the run the exec was made in. */
  shim: ShimTask;
  process: OciProcess;
  processConfig: ExecProcessConfig;
  attachStdin: boolean;
  attachStdout: boolean;
  attachStderr: boolean;
  detachKeys: string;
}

/**
 * Emits `data` (stream, chunk) for the attached streams and `end` once the process has exited and
 * its output is read: a client seeing the end may inspect the exit code at once.
 */
export class ExecInstance extends EventEmitter {
  running = false;
  exitCode: number | null = null;
  pid = 0;
  started = false;
  /** The terminal size last asked for: one asked before the start is applied at the start. */
  private size?: { height: number; width: number };
  private io?: ContainerIO;
  private dir: string;
  /**
   * The registration with containerd made at create, for the container run it was made in, and
   * the FIFOs made meanwhile (held open only from the start: an exec never started keeps no fds).
   */
  private early?: { run: number; registered: Promise<boolean>; prepared: Promise<boolean> };

  constructor(
    private readonly ctx: Pick<EngineContext, 'paths' | 'events'>,
    readonly settings: ExecSettings,
    private readonly fifoDirs: FifoDirs,
  ) {
    super();
    this.dir = ctx.paths.execIo(settings.container.id, settings.id);
  }

  get id(): string {
    return this.settings.id;
  }

  get stdinAttached(): boolean {
    return this.settings.attachStdin;
  }

  get detachKeys(): string {
    return this.settings.detachKeys;
  }

  get tty(): boolean {
    return this.settings.processConfig.tty;
  }

  /** The event action, as Docker writes it: `exec_start: sh -c date` (with a space when no args). */
  private action(verb: string): string {
    const p = this.settings.processConfig;
    return `${verb}: ${p.entrypoint} ${p.arguments.join(' ')}`;
  }

  announceCreate(): void {
    publishContainerEvent(this.ctx, this.settings.container, this.action('exec_create'), { execID: this.id });
  }

  /**
   * Registers the process with containerd right away when no terminal or stdin depends on how
   * it is started, and makes its FIFOs meanwhile, so the start only has to open them and run it:
   * a round trip and the FIFOs' checks less between the client's two calls.
   */
  registerEarly(): void {
    if (this.tty || this.settings.attachStdin) return;
    const container = this.settings.container;
    this.dir = this.fifoDirs.take() ?? this.dir;
    const opts = { dir: this.dir, openStdin: false, tty: false };
    const succeeded = (p: Promise<unknown>) =>
      p.then(
        () => true,
        () => false,
      );
    this.early = {
      run: container.runStartedAt,
      registered: succeeded(
        this.settings.shim.exec(this.id, this.settings.process, ContainerIO.pathsOf(opts)),
      ),
      prepared: succeeded(ContainerIO.prepare(opts)),
    };
  }

  /** Starts the process; resolves once it runs. `detached`: nobody reads its output. */
  async start(detached: boolean): Promise<void> {
    const { shim } = this.settings;
    this.started = true;
    this.running = true;
    publishContainerEvent(this.ctx, this.settings.container, this.action('exec_start'), { execID: this.id });
    // A registration made for an earlier run of the container went with that run's task.
    const made = this.early;
    this.early = undefined;
    const early = made?.run === this.settings.container.runStartedAt ? made : undefined;
    if (!made) this.dir = this.fifoDirs.take() ?? this.dir;
    const opts = { dir: this.dir, openStdin: this.settings.attachStdin && !detached, tty: this.tty };
    // Awaited for a stale registration too: its FIFOs are being made in this same directory.
    const prepared = made && (await made.prepared);
    const io = early && prepared ? ContainerIO.reopen(opts) : await ContainerIO.create(opts);
    this.io = io;
    const wanted = (s: StdStream) =>
      s === 'stdout' ? this.settings.attachStdout : this.settings.attachStderr;
    if (!detached) io.on('data', (s: StdStream, chunk: Buffer) => wanted(s) && this.emit('data', s, chunk));
    const drained = new Promise<void>((resolve) => io.once('end', resolve));
    try {
      // A size known before the start goes into the spec, so the first program run already sees it.
      const asked = this.size;
      const process = asked ? { ...this.settings.process, consoleSize: asked } : this.settings.process;
      const registered = early && (await early.registered);
      if (!registered) await shim.exec(this.id, process, io.paths);
      const exited = shim.wait(this.id);
      // A size asked while the process was being set up (clients resize right after the head).
      this.pid = await shim.start(this.id);
      if (this.size && this.size !== asked)
        await this.resize(this.size.height, this.size.width).catch(() => undefined);
      void exited
        .then(
          (e) => e.exitStatus,
          () => 126,
        )
        .then((code) => this.finish(code, io, drained));
    } catch (err) {
      await shim.deleteProcess(this.id).catch(() => undefined);
      void this.finish(126, io, drained);
      // What the runtime said, as dockerd passes it on (a missing command is told this way).
      throw new SystemError(runtimeMessage(err), { cause: err });
    }
  }

  private async finish(exitCode: number, io: ContainerIO, drained: Promise<void>): Promise<void> {
    io.closeWhenDrained();
    await drained;
    this.exitCode = exitCode;
    this.running = false;
    publishContainerEvent(this.ctx, this.settings.container, 'exec_die', {
      execID: this.id,
      exitCode: String(exitCode),
    });
    this.emit('end');
    // After the end: the exit code is known, the client need not wait for the shim's cleanup.
    await this.settings.shim.deleteProcess(this.id).catch(() => undefined);
    this.fifoDirs.give(this.dir);
  }

  writeStdin(chunk: Buffer): void {
    this.io?.stdin?.write(chunk);
  }

  /**
   * The client's stdin ended: the process reads end-of-file. Not on a terminal, as dockerd: the
   * docker CLI reads the detach keys itself there and then hangs up, and the process runs on.
   */
  endStdin(): void {
    const stdin = this.io?.stdin;
    if (this.tty || !stdin || stdin.writableEnded) return;
    stdin.end(() => {
      void this.settings.shim.closeIO(this.id).catch(() => undefined);
    });
  }

  /** The detach keys were typed: the process keeps running without the client. */
  detach(): void {
    publishContainerEvent(this.ctx, this.settings.container, 'exec_detach', { execID: this.id });
    this.close();
  }

  /** The client went away. */
  close(): void {
    this.removeAllListeners('data');
  }

  async resize(height: number, width: number): Promise<void> {
    this.size = { height, width };
    // Before the process exists the size is kept for the start (a terminal opened by a client
    // sends its size as soon as it connects, which can be ahead of the start).
    if (this.pid) await this.settings.shim.resizePty(this.id, width, height);
  }

  inspect(withPid: boolean): ExecInspect {
    const s = this.settings;
    return {
      ID: this.id,
      Running: this.running,
      ExitCode: this.exitCode,
      ProcessConfig: s.processConfig,
      OpenStdin: s.attachStdin,
      OpenStderr: s.attachStderr,
      OpenStdout: s.attachStdout,
      CanRemove: false,
      ContainerID: s.container.id,
      DetachKeys: s.detachKeys,
      ...(withPid ? { Pid: this.pid } : {}),
    };
  }
}

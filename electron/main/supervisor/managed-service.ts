// One supervised server: start (or adopt one already answering), wait for health, restart with
// backoff when it dies, give up after repeated fast failures, stop with SIGTERM then SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { describeCheck, probe, type HealthCheck } from './health-check';
import { type RestartPolicy, type ServiceState, type ServiceStatus } from './service-state';

export interface ServiceSpec {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  health: HealthCheck;
  /** Where the app writes the server's output; empty for an external server (not the app's). */
  logFile: string;
  /** Use a server that already answers the health check instead of starting a second one. */
  adopt: boolean;
  /**
   * Never started by the app, only watched (the system's svcd): down until it answers, then up
   * and adopted. The text says what to do while it is down.
   */
  external?: string;
  /** Created before start (e.g. the directory of a unix socket). */
  ensureDirs?: string[];
  /** Files that must exist to start (the compiled program); missing means failed, not retried. */
  requires?: string[];
}

const ADOPTED_RECHECK_MS = 5_000;
const PROBE_INTERVAL_MS = 100;

/**
 * Lines of a Node program's stderr that say nothing about why it died: Node's trailer
 * ("Node.js v20…"), its warnings ("(node:12) Warning: …") and their hint, stack frames and the
 * caret under a source line. The error line ("Error: …") stays.
 */
const NOT_A_REASON = /^(Node\.js v\d|\(node:\d+\) |\(Use `node --trace|at |\^+$)/;

export class ManagedService extends EventEmitter<{ state: [ServiceState] }> {
  private child?: ChildProcess;
  private log?: WriteStream;
  private stopping = false;
  /** The stop under way: a second stop waits for it instead of signalling again. */
  private terminating?: { child: ChildProcess; done: Promise<void> };
  private fastFailures = 0;
  private restartTimer?: NodeJS.Timeout;
  private adoptedTimer?: NodeJS.Timeout;
  private lastStderr = '';
  private wasUp = false;
  private current: ServiceState;

  constructor(
    readonly spec: ServiceSpec,
    private readonly policy: RestartPolicy,
  ) {
    super();
    this.current = {
      name: spec.name,
      status: 'down',
      reason: 'not started',
      adopted: false,
      ...(spec.external ? { external: true } : {}),
      restarts: 0,
      since: Date.now(),
      logFile: spec.logFile,
      endpoint: describeCheck(spec.health),
    };
  }

  get state(): ServiceState {
    return { ...this.current };
  }

  async start(): Promise<void> {
    this.stopping = false;
    this.fastFailures = 0;
    if ((this.spec.adopt || this.spec.external) && (await probe(this.spec.health))) {
      this.set('up', { adopted: true, pid: undefined, reason: undefined });
      this.watchAdopted();
      return;
    }
    if (this.spec.external) {
      this.set('down', { adopted: false, pid: undefined, reason: this.spec.external });
      this.watchAdopted();
      return;
    }
    await this.launch('starting');
  }

  /** Manual restart from the UI: also the way out of 'failed'. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    clearTimeout(this.adoptedTimer);
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      // One SIGTERM only: svcd takes a second signal as "give up the orderly shutdown".
      if (this.terminating?.child !== child) this.terminating = { child, done: this.terminate(child) };
      await this.terminating.done;
    }
    this.closeLog();
    // An adopted server is not ours to stop: it keeps running after we leave.
    this.set('down', { reason: 'stopped', pid: undefined, adopted: false });
  }

  private async terminate(child: ChildProcess): Promise<void> {
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), this.policy.stopTimeoutMs);
    await exited;
    clearTimeout(killer);
  }

  private async launch(status: ServiceStatus): Promise<void> {
    const missing = (this.spec.requires ?? []).filter((f) => !existsSync(f));
    if (missing.length > 0) {
      this.set('failed', { pid: undefined, reason: `${missing.join(', ')} not found (run npm run build)` });
      return;
    }
    for (const d of this.spec.ensureDirs ?? []) mkdirSync(d, { recursive: true });
    mkdirSync(dirname(this.spec.logFile), { recursive: true });
    this.log ??= createWriteStream(this.spec.logFile, { flags: 'a' });
    this.log.write(
      `--- ${new Date().toISOString()} starting ${this.spec.command} ${this.spec.args.join(' ')}\n`,
    );
    this.lastStderr = '';
    this.wasUp = false;
    const startedAt = Date.now();
    // detached: its own process group, so a terminal's Ctrl-C reaches the app alone, which
    // then stops its servers in order (svcd would take a second signal as "exit now").
    const child = spawn(this.spec.command, this.spec.args, {
      cwd: this.spec.cwd,
      env: this.spec.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.child = child;
    child.stdout?.pipe(this.log, { end: false });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.log?.write(chunk);
      const lines = chunk
        .toString('utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && !NOT_A_REASON.test(l));
      this.lastStderr = lines[lines.length - 1] ?? this.lastStderr;
    });
    let spawnError: Error | undefined;
    child.on('error', (err) => {
      spawnError = err;
    });
    child.on('exit', (code, signal) => {
      if (this.child !== child) return;
      this.child = undefined;
      if (this.stopping) return;
      const why = spawnError
        ? `could not start ${this.spec.command}: ${spawnError.message}`
        : `exited with ${signal ? `signal ${signal}` : `code ${code}`}${this.lastStderr ? `: ${this.lastStderr}` : ''}`;
      this.log?.write(`--- ${new Date().toISOString()} ${why}\n`);
      this.onDeath(why, Date.now() - startedAt);
    });
    this.set(status, { pid: child.pid, adopted: false });
    await this.waitReady(child);
  }

  private async waitReady(child: ChildProcess): Promise<void> {
    const deadline = Date.now() + this.policy.readyTimeoutMs;
    // A server says it is ready on stdout (svcd's first line): probe then, not at the next
    // interval, as the screens wait for the engine.
    let wake = () => {};
    const onOutput = () => wake();
    child.stdout?.on('data', onOutput);
    try {
      while (this.child === child && !this.stopping) {
        if (await probe(this.spec.health, 500)) {
          if (this.child !== child) return;
          this.wasUp = true;
          this.set('up', { reason: undefined });
          return;
        }
        if (Date.now() > deadline) {
          this.lastStderr = `not answering ${describeCheck(this.spec.health)} after ${this.policy.readyTimeoutMs} ms`;
          child.kill('SIGKILL');
          return;
        }
        await new Promise<void>((r) => {
          const timer = setTimeout(r, PROBE_INTERVAL_MS);
          wake = () => {
            clearTimeout(timer);
            r();
          };
        });
      }
    } finally {
      child.stdout?.off('data', onOutput);
    }
  }

  private onDeath(why: string, ranMs: number): void {
    // A run that never became healthy counts as fast however long it took to time out.
    const fast = !this.wasUp || ranMs < this.policy.fastFailureMs;
    this.fastFailures = fast ? this.fastFailures + 1 : 0;
    if (this.fastFailures >= this.policy.maxFastFailures) {
      this.set('failed', {
        pid: undefined,
        reason: `gave up after ${this.fastFailures} failures in a row: ${why}`,
      });
      return;
    }
    const delay = Math.min(
      this.policy.initialBackoffMs * 2 ** Math.max(0, this.fastFailures - 1),
      this.policy.maxBackoffMs,
    );
    this.set('restarting', { pid: undefined, reason: why, restarts: this.current.restarts + 1 });
    this.restartTimer = setTimeout(() => void this.launch('restarting'), delay);
  }

  /**
   * An adopted server has no child to watch, so a slow health check notices when it goes (and
   * when an external one comes back).
   */
  private watchAdopted(): void {
    this.adoptedTimer = setTimeout(async () => {
      if (this.stopping) return;
      const up = await probe(this.spec.health);
      if (this.stopping) return;
      const wasUp = this.current.status === 'up';
      if (up && !wasUp) this.set('up', { adopted: true, reason: undefined });
      if (!up && wasUp)
        this.set('down', {
          adopted: false,
          reason: `adopted server stopped answering ${this.current.endpoint}`,
        });
      if (up || this.spec.external) return this.watchAdopted();
      void this.launch('starting');
    }, ADOPTED_RECHECK_MS);
    this.adoptedTimer.unref();
  }

  private closeLog(): void {
    this.log?.end();
    this.log = undefined;
  }

  private set(status: ServiceStatus, patch: Partial<ServiceState>): void {
    this.current = { ...this.current, ...patch, status, since: Date.now() };
    if (status === 'up' || status === 'starting') delete this.current.reason;
    if (patch.reason !== undefined) this.current.reason = patch.reason;
    this.emit('state', this.state);
  }
}

// svcd's private containerd: generated config, own root, state and socket; started, watched,
// restarted with backoff when it dies, and stopped without touching the container shims.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError, InvalidParameterError, SystemError, UnavailableError } from '../../api/errors';
import { childSearchPath, requireBinary } from './binaries';
import { ContainerdClient, type ContainerdVersion } from './client';
import { containerdConfigToml } from './config-toml';
import { contentStoreDir, type LocalContentPaths } from './local-content';
import { processExists } from '../../lib/process-exists';
import { runcRootOf } from '../../lib/runc-root';

export interface ContainerdProcessOptions {
  /** Directory owning everything of this containerd: root/, state/, config.toml, containerd.log. */
  dir: string;
  /** gRPC socket path. Default `<dir>/containerd.sock`, or a short path under the temp dir when that is too long. */
  address?: string;
  /** The containerd program; found in PATH by default. */
  binary?: string;
  logLevel?: 'trace' | 'debug' | 'info' | 'warn' | 'error';
  /** How long start waits for containerd to answer Version. */
  startTimeoutMs?: number;
  /** How long stop waits after SIGTERM before SIGKILL. */
  stopTimeoutMs?: number;
}

export interface ContainerdExit {
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ContainerdProcessEvents {
  /** containerd died unexpectedly; a restart is scheduled. */
  exit: [ContainerdExit];
  /** containerd answers again after a restart: re-subscribe to events. */
  restarted: [{ pid: number; version: ContainerdVersion }];
  /** A restart attempt failed; another one follows with a longer delay. */
  'restart-failed': [Error];
}

/** sockaddr_un.sun_path holds 108 bytes including the final NUL. */
const maxSocketPathBytes = 107;
const ttrpcSuffix = '.ttrpc';
const minRestartDelayMs = 100;
const maxRestartDelayMs = 5000;
/** A containerd that ran this long is considered healthy: the restart backoff starts over. */
const stableAfterMs = 30_000;

export class ContainerdProcess extends EventEmitter<ContainerdProcessEvents> {
  readonly address: string;
  readonly root: string;
  readonly state: string;
  /** runc's state root for the tasks svcd creates (runc-options.ts): removed with the data root. */
  readonly runcRoot: string;
  readonly configFile: string;
  /** Where blobs are staged before they are linked into containerd's store (local-content.ts). */
  readonly localContent: LocalContentPaths;
  readonly logFile: string;
  private readonly pidFile: string;
  private readonly binary: string;
  private readonly startTimeoutMs: number;
  private readonly stopTimeoutMs: number;
  private child: ChildProcess | undefined;
  private childExited: Promise<void> = Promise.resolve();
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private restartDelayMs = minRestartDelayMs;

  constructor(private readonly options: ContainerdProcessOptions) {
    super();
    const dir = path.resolve(options.dir);
    this.root = path.join(dir, 'root');
    this.state = path.join(dir, 'state');
    this.runcRoot = runcRootOf(dir);
    this.configFile = path.join(dir, 'config.toml');
    this.localContent = { store: contentStoreDir(this.root), staging: path.join(dir, 'content-staging') };
    this.logFile = path.join(dir, 'containerd.log');
    this.pidFile = path.join(dir, 'containerd.pid');
    this.address = options.address ?? defaultSocketPath(dir);
    if (Buffer.byteLength(this.address + ttrpcSuffix) > maxSocketPathBytes) {
      throw new InvalidParameterError(
        `containerd socket path too long for a unix socket (${maxSocketPathBytes - ttrpcSuffix.length} bytes at most): ${this.address}`,
      );
    }
    this.binary = requireBinary('containerd', options.binary);
    this.startTimeoutMs = options.startTimeoutMs ?? 30_000;
    this.stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
  }

  /** The running containerd's PID, if any. */
  get pid(): number | undefined {
    return this.child?.exitCode === null && this.child.signalCode === null ? this.child.pid : undefined;
  }

  /** Writes the config, starts containerd and resolves once it answers over gRPC. */
  async start(): Promise<ContainerdVersion> {
    if (this.pid !== undefined) throw new ConflictError(`containerd is already running (pid ${this.pid})`);
    requireBinary('runc');
    requireBinary('containerd-shim-runc-v2');
    this.stopping = false;
    for (const dir of [this.root, this.state, path.dirname(this.address)])
      mkdirSync(dir, { recursive: true });
    // What a killed svcd staged was never committed; what it linked, containerd's GC collects.
    rmSync(this.localContent.staging, { recursive: true, force: true });
    writeFileSync(
      this.configFile,
      containerdConfigToml({
        root: this.root,
        state: this.state,
        address: this.address,
        ttrpcAddress: this.address + ttrpcSuffix,
        optDir: path.join(this.root, 'opt'),
        logLevel: this.options.logLevel ?? 'info',
      }),
    );
    await this.stopLeftover();
    try {
      return await this.launch();
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  /** SIGTERM, then SIGKILL after the timeout. Only containerd itself: shims and containers live on. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (child && this.pid !== undefined) {
      child.kill('SIGTERM');
      const exited = await Promise.race([
        this.childExited.then(() => true),
        sleep(this.stopTimeoutMs, false),
      ]);
      if (!exited) child.kill('SIGKILL');
    }
    await this.childExited;
    rmSync(this.pidFile, { force: true });
  }

  private async launch(): Promise<ContainerdVersion> {
    const log = openSync(this.logFile, 'a');
    let child: ChildProcess;
    try {
      // detached: its own session, so a terminal's Ctrl-C reaches svcd alone and svcd stops
      // containerd in order. The shims containerd starts have their own process groups too.
      child = spawn(this.binary, ['--config', this.configFile], {
        detached: true,
        stdio: ['ignore', log, log],
        env: { ...process.env, PATH: childSearchPath() },
      });
    } finally {
      closeSync(log);
    }
    this.child = child;
    const startedAt = Date.now();
    this.childExited = new Promise((resolve) => {
      child.once('error', () => resolve());
      child.once('exit', (code, signal) => {
        resolve();
        this.onExit(child, { pid: child.pid ?? 0, code, signal }, Date.now() - startedAt);
      });
    });
    if (child.pid !== undefined) writeFileSync(this.pidFile, `${child.pid}\n`);
    return this.waitReady(child);
  }

  private async waitReady(child: ChildProcess): Promise<ContainerdVersion> {
    const client = ContainerdClient.connect(this.address, 'default');
    const deadline = Date.now() + this.startTimeoutMs;
    let dead = false;
    void this.childExited.then(() => (dead = true));
    try {
      for (;;) {
        if (dead) throw new SystemError(`containerd exited while starting: ${this.logTail()}`);
        try {
          return await Promise.race([
            client.version(),
            sleep(2000).then(() => Promise.reject(new Error('timeout'))),
          ]);
        } catch (err) {
          if (Date.now() > deadline) {
            child.kill('SIGKILL');
            throw new UnavailableError(
              `containerd did not answer on ${this.address} within ${this.startTimeoutMs} ms: ${this.logTail()}`,
              { cause: err },
            );
          }
        }
        await sleep(100);
      }
    } finally {
      client.close();
    }
  }

  private onExit(child: ChildProcess, exit: ContainerdExit, ranForMs: number): void {
    if (this.stopping || child !== this.child) return;
    this.emit('exit', exit);
    if (ranForMs > stableAfterMs) this.restartDelayMs = minRestartDelayMs;
    const delay = this.restartDelayMs;
    this.restartDelayMs = Math.min(this.restartDelayMs * 2, maxRestartDelayMs);
    this.restartTimer = setTimeout(() => void this.restart(), delay);
  }

  /** One restart attempt; if containerd dies again, onExit schedules the next. */
  private async restart(): Promise<void> {
    if (this.stopping) return;
    try {
      const version = await this.launch();
      this.emit('restarted', { pid: this.child?.pid ?? 0, version });
    } catch (err) {
      this.emit('restart-failed', err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** A containerd left running by an svcd that was killed holds our root and socket: stop it. */
  private async stopLeftover(): Promise<void> {
    let pid: number;
    try {
      pid = Number.parseInt(readFileSync(this.pidFile, 'utf8'), 10);
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmdline.includes(this.configFile)) return;
    } catch {
      return;
    }
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + this.stopTimeoutMs;
    while (processExists(pid)) {
      if (Date.now() > deadline) process.kill(pid, 'SIGKILL');
      await sleep(50);
    }
  }

  private logTail(): string {
    try {
      return readFileSync(this.logFile, 'utf8').trim().split('\n').slice(-5).join('\n') || '(empty log)';
    } catch {
      return '(no log)';
    }
  }
}

function defaultSocketPath(dir: string): string {
  const inDir = path.join(dir, 'containerd.sock');
  if (Buffer.byteLength(inDir + ttrpcSuffix) <= maxSocketPathBytes) return inDir;
  const id = createHash('sha256').update(dir).digest('hex').slice(0, 12);
  return path.join(os.tmpdir(), `svc-containerd-${id}`, 'containerd.sock');
}

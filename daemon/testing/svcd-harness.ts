// Starts an isolated svcd for one test suite: its own temp data root, socket and containerd.
// Every suite that needs the engine uses this, so suites never share state.
import { randomBytes } from 'node:crypto';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineEvent } from '../api/event-types';
import { repoRoot } from '../lib/product';
import { engineRequest, type EngineResponse, type RequestOptions } from './engine-client';
import { svcdNodeFlags } from '../lib/svcd-launch';
import { runcRootOf } from '../lib/runc-root';

/** runc's state directories of an svcd's containers: its runc root, in its namespace `svc`. */
export function runcStateDir(dataRoot: string): string {
  return join(runcRootOf(join(dataRoot, 'containerd')), 'svc');
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * How to run svcd: the bin/svcd launcher (with its node flags) when the tests run compiled, and
 * the same flags under tsx when the test itself runs from source.
 */
export function svcdCommand(): { command: string; args: string[] } {
  const root = repoRoot();
  if (__filename.endsWith('.ts')) {
    return {
      command: process.execPath,
      args: [...svcdNodeFlags, '--import', 'tsx', join(root, 'daemon/bin/svcd.ts')],
    };
  }
  return { command: join(root, 'bin/svcd'), args: [] };
}

export interface SvcdHarnessOptions {
  /** Extra command-line arguments after --data-root and --host. */
  args?: string[];
  /** Reuse a data root (to restart on the same state); a fresh temp dir otherwise. */
  dir?: string;
  readyTimeoutMs?: number;
  /** Keep everything svcd writes on stderr (its log), not only the tail. */
  keepLog?: boolean;
  /** Run svcd as this user (rootless), with HOME and XDG_RUNTIME_DIR under the suite's directory. */
  user?: { uid: number; gid: number };
  /** Run svcd (and so its containerd and containers) in this named network namespace (`ip netns`). */
  netns?: string;
}

export class SvcdInstance {
  private child?: ChildProcess;
  private stderrTail = '';
  private stderrAll = '';
  readonly dataRoot: string;
  readonly socket: string;

  constructor(
    readonly dir: string,
    private readonly opts: SvcdHarnessOptions,
  ) {
    this.dataRoot = join(dir, 'data');
    this.socket = join(dir, 'svcd.sock');
    // A default bridge of its own, kept across restarts, so suites and peers never share svc0.
    this.bridge = `svct${randomBytes(4).toString('hex')}`;
  }

  readonly bridge: string;

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** svcd runs (it was not stopped or killed by the test). */
  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts svcd and resolves with its ready line once it serves. */
  async start(): Promise<string> {
    const { command, args } = this.launchCommand(svcdCommand());
    const child = spawn(
      command,
      [
        ...args,
        '--data-root',
        this.dataRoot,
        '--host',
        `unix://${this.socket}`,
        ...(this.opts.args?.includes('--bridge') ? [] : ['--bridge', this.bridge]),
        ...(this.opts.args ?? []),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: this.env() },
    );
    this.child = child;
    this.stderrTail = '';
    child.stderr!.on('data', (d: Buffer) => {
      this.stderrTail = (this.stderrTail + d.toString()).slice(-8000);
      if (this.opts.keepLog) this.stderrAll += d.toString();
      if (process.env.SVC_TEST_DEBUG) process.stderr.write(d);
    });
    return new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(
          new Error(`svcd not ready within ${this.opts.readyTimeoutMs ?? 60000} ms:\n${this.stderrTail}`),
        );
      }, this.opts.readyTimeoutMs ?? 60000);
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const nl = out.indexOf('\n');
        if (nl >= 0) {
          clearTimeout(timer);
          resolve(out.slice(0, nl));
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`svcd exited (${code ?? signal}) before it was ready:\n${this.stderrTail}`));
      });
    });
  }

  private launchCommand(cmd: { command: string; args: string[] }): { command: string; args: string[] } {
    const { netns } = this.opts;
    // nsenter, not `ip netns exec`: that one mounts a sysfs of its own, hiding the cgroup mounts.
    const inNetns = netns
      ? { command: 'nsenter', args: [`--net=/run/netns/${netns}`, '--', cmd.command, ...cmd.args] }
      : cmd;
    return this.opts.user ? commandAsUser(this.opts.user, inNetns) : inNetns;
  }

  private env(): NodeJS.ProcessEnv {
    return this.opts.user ? userDirEnv(this.dir) : process.env;
  }

  get stderr(): string {
    return this.stderrTail;
  }

  /** Closes the reading ends of svcd's stdout and stderr, as a parent that was killed leaves them. */
  closeOutput(): void {
    this.child?.stdout?.destroy();
    this.child?.stderr?.destroy();
  }

  /** Everything svcd logged since the harness started it (with `keepLog`). */
  get log(): string {
    return this.stderrAll;
  }

  request(method: string, path: string, opts?: RequestOptions): Promise<EngineResponse> {
    return engineRequest(this.socket, method, path, opts);
  }

  /** Stops svcd as a user would (SIGTERM) and waits for it to exit; returns its exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 30000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  }

  /** kill -9: no chance to clean up, as after a crash. */
  kill9(): Promise<number | null> {
    return this.stop('SIGKILL');
  }
}

/**
 * setpriv runs the command as that user, in those supplementary groups only (it execs, so
 * signals still reach the command itself).
 */
export function commandAsUser(
  user: { uid: number; gid: number },
  cmd: { command: string; args: string[] },
  groups: number[] = [],
): { command: string; args: string[] } {
  const groupArg = groups.length ? `--groups=${groups.join(',')}` : '--clear-groups';
  return {
    command: 'setpriv',
    args: [`--reuid=${user.uid}`, `--regid=${user.gid}`, groupArg, cmd.command, ...cmd.args],
  };
}

/** A user's environment in a suite's directory: HOME and XDG_DATA_HOME `home`, XDG_RUNTIME_DIR `run`. */
export function userDirEnv(dir: string): NodeJS.ProcessEnv {
  const home = join(dir, 'home');
  return { ...process.env, HOME: home, XDG_RUNTIME_DIR: join(dir, 'run'), XDG_DATA_HOME: home };
}

export async function startSvcd(opts: SvcdHarnessOptions = {}): Promise<SvcdInstance> {
  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'svcd-')));
  const instance = new SvcdInstance(dir, opts);
  await instance.start();
  return instance;
}

/** An engine a test started under its own directory: svcd, or a peer dockerd. */
export interface EngineUnderTest {
  readonly dir: string;
  request(method: string, path: string): Promise<EngineResponse>;
  stop(): Promise<unknown>;
}

/**
 * Removes the engine's containers through the API, stops it, then clears what a crashed run may
 * have left under its directory (shims, mounts) and removes the directory.
 */
export async function destroyEngine(
  engine: EngineUnderTest | undefined,
  afterStop: () => void = () => undefined,
): Promise<void> {
  if (!engine) return;
  try {
    const list = await engine.request('GET', '/containers/json?all=1');
    if (list.status === 200) {
      for (const c of list.json<Array<{ Id: string }>>()) {
        await engine.request('DELETE', `/containers/${c.Id}?force=1&v=1`);
      }
    }
  } catch {}
  await engine.stop();
  afterStop();
  await cleanupUnder(engine.dir);
}

/**
 * destroyEngine for svcd, which must leave no runc state: an svcd still serving when the suite
 * ends has deleted every container and let its shim keeper go, so its runc root is empty; the
 * suite fails otherwise. State that an svcd killed by the test left is removed as after a crash.
 */
export async function destroySvcd(instance: SvcdInstance | undefined): Promise<void> {
  if (!instance) return;
  const stateDir = runcStateDir(instance.dataRoot);
  let left: string[] = [];
  const serving = instance.running;
  await destroyEngine(instance, () => {
    left = listDir(stateDir);
    // --force kills what still runs and removes the cgroups, which the directory does not hold.
    for (const id of left) {
      try {
        execFileSync('runc', ['--root', stateDir, 'delete', '--force', id], { stdio: 'ignore' });
      } catch {}
    }
  });
  if (serving && left.length > 0) {
    throw new Error(`svcd left runc state of ${left.length} containers in ${stateDir}: ${left.join(' ')}`);
  }
}

/** Kills what a data root under `dir` left running, unmounts what is mounted there, removes it. */
export async function cleanupUnder(dir: string): Promise<void> {
  const procs = readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map((pid) => {
      try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        return {
          pid: Number(pid),
          ppid: Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]),
          cmdline: readFileSync(`/proc/${pid}/cmdline`, 'utf8'),
        };
      } catch {
        return undefined;
      }
    })
    .filter((p) => p !== undefined);
  // A containerd whose svcd was killed before the suite ended, its shims, and the containers'
  // init processes (killing an init ends everything in its pid namespace).
  const owned = new Set(
    procs
      .filter((p) => /^(\/usr\/bin\/)?containerd/.test(p.cmdline) && p.cmdline.includes(`${dir}/`))
      .map((p) => p.pid),
  );
  for (const p of procs) if (owned.has(p.ppid)) owned.add(p.pid);
  for (const pid of owned) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  const mounts = readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[1])
    .filter((m) => m?.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const m of mounts) {
    try {
      execFileSync('umount', ['-l', m]);
    } catch {}
  }
  removeNetworksUnder(dir);
  await rm(dir, { recursive: true, force: true, maxRetries: 3 });
}

/** The networks an svcd kept under `dir` (its data root's networks/): IDs and bridges. */
function networksUnder(dir: string): Array<{ Id: string; Bridge?: string }> {
  const out: Array<{ Id: string; Bridge?: string }> = [];
  for (const root of [dir, join(dir, 'data'), join(dir, 'data', 'engine')]) {
    let files: string[];
    try {
      files = readdirSync(join(root, 'networks'));
    } catch {
      continue;
    }
    for (const file of files) {
      try {
        out.push(
          JSON.parse(readFileSync(join(root, 'networks', file), 'utf8')) as { Id: string; Bridge?: string },
        );
      } catch {}
    }
  }
  return out;
}

const xtables = (tool: string, ...args: string[]) =>
  execFileSync(tool, ['-w', '5', ...args], { encoding: 'utf8' });

/**
 * Deletes the iptables and ip6tables rules (nat, filter) whose text has one of `marks`, and the
 * CNI chains they jump to.
 */
export function removeRulesMarked(marks: string[]): void {
  for (const tool of ['iptables', 'ip6tables'])
    for (const table of ['nat', 'filter']) {
      const chains = new Set<string>();
      let listed: string;
      try {
        listed = xtables(tool, '-t', table, '-S');
      } catch {
        continue; // no ip6tables here
      }
      for (const line of listed.split('\n')) {
        if (!line.startsWith('-A ') || !marks.some((m) => line.includes(m))) continue;
        const target = / -j (CNI-[A-Za-z0-9-]+)/.exec(line)?.[1];
        if (target && !target.startsWith('CNI-HOSTPORT-')) chains.add(target);
        try {
          execFileSync('sh', ['-c', `${tool} -w 5 -t ${table} ${line.replace(/^-A /, '-D ')}`], {
            stdio: 'ignore',
          });
        } catch {}
      }
      for (const chain of chains) {
        try {
          xtables(tool, '-t', table, '-F', chain);
          xtables(tool, '-t', table, '-X', chain);
        } catch {}
      }
    }
}

/**
 * What the networks under `dir` left on the host when their containers' CNI DEL never ran (a
 * killed svcd or runner): the rules whose CNI comment names one of the networks, the
 * per-container chains they jump to, isolation rules, and the bridges.
 */
function removeNetworksUnder(dir: string): void {
  const networks = networksUnder(dir);
  if (networks.length === 0) return;
  // CNI's comments name the network by its ID (unique, random); isolation and forwarding rules
  // name the bridge.
  const marks = networks.flatMap((n) => [
    n.Id,
    ...(n.Bridge ? [`svcd no icc ${n.Bridge}"`, `svcd forward ${n.Bridge}"`] : []),
  ]);
  removeRulesMarked(marks);
  for (const { Bridge } of networks) {
    if (!Bridge) continue;
    try {
      execFileSync('ip', ['link', 'del', Bridge], { stdio: 'ignore' });
    } catch {}
  }
}

/** The events matching `filters` since `sinceSec` (Unix seconds) until now. */
export async function engineEvents(
  svcd: Pick<SvcdInstance, 'request'>,
  sinceSec: number,
  filters: Record<string, string[]>,
): Promise<EngineEvent[]> {
  const query = encodeURIComponent(JSON.stringify(filters));
  const until = (Date.now() / 1000 + 0.2).toFixed(3);
  const res = await svcd.request(
    'GET',
    `/events?since=${sinceSec.toFixed(3)}&until=${until}&filters=${query}`,
  );
  return res
    .text()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as EngineEvent);
}

// A private Podman API service (Debian's podman 4.3) for tests that add Podman as an engine:
// `podman system service` on a socket in its own temp dir, with its own containers.conf,
// storage.conf and registries.conf, so neither /etc/containers' settings nor the host's podman
// state is used. vfs storage (no overlay mounts), file locks (not /dev/shm/libpod_lock), events
// in a file, containers without a network by default (no bridge, no iptables rules), and no
// registry but the loopback one a test names; temp files under its directory (TMPDIR), not
// /var/tmp. What podman as root writes to fixed paths whatever its configuration (the pull cache
// in /var/lib/containers/cache, runc's state in /run/runc) goes to tmpfs mounts of a mount
// namespace of its own, gone with its last process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { engineRequest, type EngineResponse, type RequestOptions } from './engine-client';
import { cleanupUnder, destroyEngine } from './svcd-harness';

/** Why a Podman test cannot run here, or undefined when it can. */
export function podmanMissing(): string | undefined {
  for (const [bin, pkg] of [
    ['podman', 'podman'],
    ['conmon', 'conmon'],
    ['runc', 'runc'],
  ]) {
    if (spawnSync(bin, ['--version']).status !== 0) return `${bin} is not installed (apt-get install ${pkg})`;
  }
  return undefined;
}

export interface PodmanOptions {
  /** A loopback registry (host:port) podman may pull from over plain HTTP. */
  insecureRegistry?: string;
}

/** The hard limit of this process's resource `name` ("Max open files"), from /proc/self/limits. */
function hardLimit(name: string): number {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(name));
  return Number(line?.slice(name.length).trim().split(/\s+/)[1]);
}

export class PodmanPeer {
  readonly socket: string;
  private child?: ChildProcess;

  constructor(readonly dir: string) {
    this.socket = join(dir, 'podman.sock');
  }

  request(method: string, path: string, opts?: RequestOptions): Promise<EngineResponse> {
    return engineRequest(this.socket, method, path, opts);
  }

  /** Writes the configuration, starts the service and waits until it answers /_ping. */
  async start(opts: PodmanOptions): Promise<void> {
    const { dir } = this;
    const env = await this.writeConfig(opts);
    const log = openSync(join(dir, 'podman.log'), 'a');
    // unshare and sh exec: the child is podman itself, which SIGTERM stops.
    this.child = spawn(
      'unshare',
      [
        '--mount',
        '--propagation',
        'private',
        '--',
        'sh',
        '-c',
        [
          'set -e',
          'mount -t tmpfs -o size=64m tmpfs /run',
          // Hiding /var/lib would hide dpkg's database, where podman looks up its packages.
          'if [ -d /var/lib/containers ]; then mount -t tmpfs -o size=64m tmpfs /var/lib/containers; fi',
          'exec podman "$@"',
        ].join('\n'),
        'sh',
        ...this.globalArgs(),
        'system',
        'service',
        // Served until stopped, however long the test idles.
        '--time=0',
        `unix://${this.socket}`,
      ],
      { stdio: ['ignore', log, log], env: { ...process.env, ...env } },
    );
    closeSync(log);
    for (let i = 0; i < 300; i++) {
      if (this.child.exitCode !== null) break;
      if (
        await this.request('GET', '/_ping').then(
          (r) => r.status === 200,
          () => false,
        )
      )
        return;
      await sleep(100);
    }
    const tail = (await readFile(join(dir, 'podman.log'), 'utf8').catch(() => '')).slice(-3000);
    throw new Error(`podman system service not ready within 30 s:\n${tail}`);
  }

  private globalArgs(): string[] {
    const { dir } = this;
    return ['--root', join(dir, 'root'), '--runroot', join(dir, 'run'), '--tmpdir', join(dir, 'tmp')];
  }

  private async writeConfig(opts: PodmanOptions): Promise<NodeJS.ProcessEnv> {
    const { dir } = this;
    const files = {
      CONTAINERS_CONF: join(dir, 'containers.conf'),
      CONTAINERS_STORAGE_CONF: join(dir, 'storage.conf'),
      CONTAINERS_REGISTRIES_CONF: join(dir, 'registries.conf'),
      // The API's imports, loads and pushes spool their bodies to temp files it never removes.
      TMPDIR: join(dir, 'scratch'),
    };
    await mkdir(files.TMPDIR);
    // Podman raises a container's open-files and process limits to 1048576, which needs
    // CAP_SYS_RESOURCE; where root lacks it (this machine runs in a container), runc refuses.
    // Our own open-files limit is within reach; the process limit podman itself runs with is
    // lower than ours, and root is exempt from it anyway.
    const nofile = hardLimit('Max open files');
    const nproc = 4096;
    await writeFile(
      files.CONTAINERS_CONF,
      [
        '[containers]',
        // Containers join no network unless asked: nothing on the host's links or iptables.
        'netns = "none"',
        `default_ulimits = ["nofile=${nofile}:${nofile}", "nproc=${nproc}:${nproc}"]`,
        '[engine]',
        'cgroup_manager = "cgroupfs"',
        'runtime = "runc"',
        'events_logger = "file"',
        `events_logfile_path = "${dir}/events.log"`,
        // Locks under tmp_dir, not the host's shared /dev/shm/libpod_lock.
        'lock_type = "file"',
        `tmp_dir = "${dir}/tmp"`,
        `image_copy_tmp_dir = "${dir}/scratch"`,
        `volume_path = "${dir}/root/volumes"`,
        '[network]',
        `network_config_dir = "${dir}/cni"`,
      ].join('\n'),
    );
    await writeFile(
      files.CONTAINERS_STORAGE_CONF,
      ['[storage]', 'driver = "vfs"', `graphroot = "${dir}/root"`, `runroot = "${dir}/run"`].join('\n'),
    );
    await writeFile(
      files.CONTAINERS_REGISTRIES_CONF,
      [
        // A short name is never looked up in a registry: no Docker Hub.
        'unqualified-search-registries = []',
        'short-name-mode = "disabled"',
        ...(opts.insecureRegistry
          ? ['[[registry]]', `location = "${opts.insecureRegistry}"`, 'insecure = true']
          : []),
      ].join('\n'),
    );
    return files;
  }

  /** Stops the service (SIGTERM, SIGKILL after 15 s); conmon and the containers stay. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
    await exited;
    clearTimeout(timer);
  }
}

export async function startPodman(opts: PodmanOptions = {}): Promise<PodmanPeer> {
  const peer = new PodmanPeer(await mkdtemp(join(tmpdir(), 'podman-peer-')));
  try {
    await peer.start(opts);
    return peer;
  } catch (err) {
    await destroyPodman(peer);
    throw err;
  }
}

/**
 * Removes the peer's containers through the API, stops the service, kills what it left under its
 * directory (leftovers below), clears the directory, then removes the cgroups.
 */
export async function destroyPodman(peer: PodmanPeer | undefined): Promise<void> {
  if (!peer) return;
  let left: Leftovers = { pids: [], ids: [] };
  await destroyEngine(peer, () => (left = killLeftovers(peer.dir)));
  await removeCgroups(left);
}

/** What a podman peer whose test runner was killed left under `dir`, cleared (the runner's sweep). */
export async function cleanupPodmanUnder(dir: string): Promise<void> {
  const left = killLeftovers(dir);
  await cleanupUnder(dir);
  await removeCgroups(left);
}

interface Leftovers {
  pids: number[];
  /** The containers' IDs, which name their cgroups. */
  ids: string[];
}

const hierarchies = () =>
  // cgroup v1: one hierarchy per controller; v2: libpod_parent in the one tree.
  ['', ...readdirSync('/sys/fs/cgroup')].map((h) => join('/sys/fs/cgroup', h, 'libpod_parent'));

/**
 * Kills what still runs for the containers under `dir` (every process in their cgroups: a
 * service that died never stopped them) and the conmons under `dir` (an exec's conmon waits
 * five minutes after the exec ends).
 */
function killLeftovers(dir: string): Leftovers {
  let ids: string[] = [];
  try {
    ids = readdirSync(join(dir, 'root', 'vfs-containers')).filter((id) => /^[0-9a-f]{64}$/.test(id));
  } catch {}
  const pids = new Set<number>();
  for (const parent of hierarchies()) {
    for (const id of ids) {
      try {
        for (const pid of readFileSync(join(parent, `libpod-${id}`, 'cgroup.procs'), 'utf8').split('\n'))
          if (pid) pids.add(Number(pid));
      } catch {}
    }
  }
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.startsWith('/usr/bin/conmon\0') && cmd.includes(`${dir}/`)) pids.add(Number(pid));
    } catch {}
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  return { pids: [...pids], ids };
}

/**
 * Once the killed processes are gone, removes their containers' cgroups and the conmon one podman
 * made under libpod_parent, and the parent: rmdir removes only an empty cgroup, so one another
 * podman still uses stays.
 */
async function removeCgroups({ pids, ids }: Leftovers): Promise<void> {
  for (let i = 0; i < 50 && pids.some((pid) => existsSync(`/proc/${pid}`)); i++) await sleep(100);
  for (const parent of hierarchies()) {
    for (const child of [...ids.map((id) => `libpod-${id}`), 'conmon', '']) {
      try {
        rmdirSync(join(parent, child));
      } catch {}
    }
  }
}

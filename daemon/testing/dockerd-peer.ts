// A private Docker Engine 20.10 (Debian's docker.io) for tests that compare with it or exchange
// images with it: its own containerd, data root, exec root and socket under one temp dir, no
// bridge, no iptables rules, no IP forwarding, so neither the host's network nor a system
// containerd is touched.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, closeSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { engineRequest, type EngineResponse, type RequestOptions } from './engine-client';
import { destroyEngine } from './svcd-harness';

/** Why a Docker Engine test cannot run here, or undefined when it can. */
export function dockerdMissing(): string | undefined {
  for (const bin of ['dockerd', 'containerd']) {
    if (spawnSync(bin, ['--version']).status !== 0)
      return `${bin} is not installed (apt-get install docker.io)`;
  }
  return undefined;
}

/** The bridge dockerd makes on the host for a swarm's ingress sandbox. */
const gwBridge = 'docker_gwbridge';
const hasLink = (name: string) => spawnSync('ip', ['link', 'show', name], { stdio: 'ignore' }).status === 0;

export class DockerdPeer {
  readonly socket: string;
  private readonly children: ChildProcess[] = [];
  private gwBridgeBefore = true;

  constructor(readonly dir: string) {
    this.socket = join(dir, 'docker.sock');
  }

  request(method: string, path: string, opts?: RequestOptions): Promise<EngineResponse> {
    return engineRequest(this.socket, method, path, opts);
  }

  /**
   * Leaves the swarm by force and removes the docker_gwbridge its ingress sandbox made on the
   * host (dockerd leaves it behind), unless that bridge was there before this peer started.
   */
  async leaveSwarm(): Promise<void> {
    await this.request('POST', '/swarm/leave?force=1').catch(() => undefined);
    if (!this.gwBridgeBefore && hasLink(gwBridge)) spawnSync('ip', ['link', 'del', gwBridge]);
  }

  /** Starts containerd, then dockerd on it, and waits until dockerd answers /_ping. */
  async start(): Promise<void> {
    const { dir } = this;
    this.gwBridgeBefore = hasLink(gwBridge);
    // Our own containerd: given none, dockerd would use a system one whenever its socket exists.
    const containerdSock = join(dir, 'containerd/containerd.sock');
    await writeFile(
      join(dir, 'containerd.toml'),
      [
        'version = 2',
        `root = "${dir}/containerd/root"`,
        `state = "${dir}/containerd/state"`,
        'disabled_plugins = ["io.containerd.grpc.v1.cri"]',
        `[grpc]\naddress = "${containerdSock}"`,
        `[ttrpc]\naddress = "${containerdSock}.ttrpc"`,
      ].join('\n'),
    );
    this.spawnLogged('containerd', ['--config', join(dir, 'containerd.toml')]);
    await this.waitFor('containerd', async () => existsSync(containerdSock));
    // An empty config file keeps a host's /etc/docker/daemon.json out of the test.
    await writeFile(join(dir, 'daemon.json'), '{}');
    this.spawnLogged('dockerd', [
      `--config-file=${dir}/daemon.json`,
      `--data-root=${dir}/data`,
      `--exec-root=${dir}/exec`,
      `--pidfile=${dir}/dockerd.pid`,
      `--host=unix://${this.socket}`,
      `--containerd=${containerdSock}`,
      '--bridge=none',
      '--iptables=false',
      '--ip-forward=false',
      '--ip-masq=false',
      '--userland-proxy=false',
    ]);
    await this.waitFor('dockerd', async () => (await this.request('GET', '/_ping')).status === 200);
  }

  /** Stops dockerd, then containerd (each SIGTERM, SIGKILL after 15 s). */
  async stop(): Promise<void> {
    for (const child of [...this.children].reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
      await exited;
      clearTimeout(timer);
    }
  }

  private spawnLogged(command: string, args: string[]): void {
    const log = openSync(join(this.dir, `${command}.log`), 'a');
    this.children.push(spawn(command, args, { stdio: ['ignore', log, log] }));
    closeSync(log);
  }

  private async waitFor(what: string, ready: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 300; i++) {
      if (await ready().catch(() => false)) return;
      await sleep(100);
    }
    const tail = async (f: string) =>
      (await readFile(join(this.dir, f), 'utf8').catch(() => '')).slice(-3000);
    throw new Error(
      `${what} not ready within 30 s\ndockerd:\n${await tail('dockerd.log')}\ncontainerd:\n${await tail('containerd.log')}`,
    );
  }
}

export async function startDockerd(): Promise<DockerdPeer> {
  const peer = new DockerdPeer(await mkdtemp(join(tmpdir(), 'dockerd-peer-')));
  try {
    await peer.start();
    return peer;
  } catch (err) {
    await destroyDockerd(peer);
    throw err;
  }
}

/** Removes the peer's containers, stops dockerd then containerd, and clears its directory. */
export function destroyDockerd(peer: DockerdPeer | undefined): Promise<void> {
  return destroyEngine(peer);
}

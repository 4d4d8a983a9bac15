// A managed plugin's process: its rootfs run by svcd's containerd (in a namespace of its own, so
// the containers' sweeps and exit monitor never see it), then activated over its socket. The
// propagated mount's host directory is a shared bind of itself while the plugin runs, as dockerd
// makes it, so mounts the plugin makes there reach the host.
import { execFile } from 'node:child_process';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SystemError } from '../../api/errors';
import type { Plugin } from '../../api/plugin-types';
import type { ContainerdClient } from '../../runtime/containerd/client';
import { runcOptions } from '../../runtime/containerd/runc-options';
import { buildPluginSpec } from '../../runtime/oci-spec/plugin-spec';
import { isMounted, unmount } from '../shared/mounts';
import { activate } from './plugin-protocol';

const run = promisify(execFile);
const SIGTERM = 15;
const SIGKILL = 9;

export interface PluginPaths {
  rootfs: string;
  /** Host side of /run/docker/plugins: short, so the socket's path fits a sockaddr_un. */
  socketDir: string;
  propagatedMount: string;
  log: string;
}

export interface PluginProcessDeps {
  /** A client acting in the plugins' own containerd namespace. */
  client: ContainerdClient;
  runcRoot: string;
  cgroupsUnavailable: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class PluginProcesses {
  constructor(private readonly deps: PluginProcessDeps) {}

  socketPath(plugin: Plugin, paths: PluginPaths): string {
    return join(paths.socketDir, plugin.Config.Interface.Socket);
  }

  /** Whether containerd runs the plugin's task now (after an svcd restart: still from before). */
  async running(id: string): Promise<boolean> {
    const task = await this.deps.client.tasks.get(id).catch(() => undefined);
    return task?.status === 'RUNNING';
  }

  /** Runs the plugin and waits (up to `timeoutMs`) until it answers activation on its socket. */
  async start(plugin: Plugin, paths: PluginPaths, timeoutMs: number): Promise<void> {
    const { client } = this.deps;
    const id = plugin.Id;
    await this.remove(id);
    await mkdir(paths.socketDir, { recursive: true, mode: 0o700 });
    await rm(this.socketPath(plugin, paths), { force: true });
    if (plugin.Config.PropagatedMount) await this.shareMount(paths.propagatedMount);
    const spec = buildPluginSpec({
      id,
      config: plugin.Config,
      settings: plugin.Settings,
      rootfs: paths.rootfs,
      socketDir: paths.socketDir,
      propagatedMount: paths.propagatedMount,
      cgroupsUnavailable: this.deps.cgroupsUnavailable,
    });
    try {
      await client.containers.create({ id, spec, labels: { 'svc.plugin': plugin.Name } });
      await client.tasks.create(id, {
        rootfs: [],
        stdout: `file://${paths.log}`,
        stderr: `file://${paths.log}`,
        options: runcOptions(this.deps.runcRoot),
      });
      await client.tasks.start(id);
      await this.waitActivated(plugin, paths, timeoutMs);
    } catch (err) {
      await this.stop(id, paths);
      throw err instanceof SystemError
        ? err
        : new SystemError(`plugin ${plugin.Name} did not start: ${(err as Error).message}`);
    }
  }

  private async waitActivated(plugin: Plugin, paths: PluginPaths, timeoutMs: number): Promise<void> {
    const socket = this.socketPath(plugin, paths);
    const deadline = Date.now() + timeoutMs;
    let last = 'its socket did not appear';
    while (Date.now() < deadline) {
      if (!(await this.running(plugin.Id))) {
        throw new SystemError(
          `plugin ${plugin.Name} exited before it answered on its socket (log: ${paths.log})`,
        );
      }
      if (
        await stat(socket).then(
          () => true,
          () => false,
        )
      ) {
        try {
          await activate({ socketPath: socket }, Math.max(1000, deadline - Date.now()));
          return;
        } catch (err) {
          last = (err as Error).message;
        }
      }
      await sleep(100);
    }
    throw new SystemError(
      `timeout: plugin ${plugin.Name} did not answer /Plugin.Activate on ${socket} within ${timeoutMs / 1000}s (${last})`,
    );
  }

  /** Stops the task (TERM, then KILL after 10 s, as dockerd), removes it and unshares the mount. */
  async stop(id: string, paths: PluginPaths): Promise<void> {
    const { tasks } = this.deps.client;
    const task = await tasks.get(id).catch(() => undefined);
    if (task && task.status !== 'STOPPED') {
      await tasks.kill(id, SIGTERM).catch(() => undefined);
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && (await this.running(id))) await sleep(50);
      if (await this.running(id)) await tasks.kill(id, SIGKILL, { all: true }).catch(() => undefined);
      for (let i = 0; i < 100 && (await this.running(id)); i++) await sleep(50);
    }
    await this.remove(id);
    await unmount(paths.propagatedMount);
    await rm(paths.socketDir, { recursive: true, force: true });
  }

  /** What containerd still holds of the plugin: its task (killed) and container. */
  private async remove(id: string): Promise<void> {
    const { tasks, containers } = this.deps.client;
    if (await this.running(id)) await tasks.kill(id, SIGKILL, { all: true }).catch(() => undefined);
    for (let i = 0; i < 100 && (await this.running(id)); i++) await sleep(50);
    await tasks.delete(id).catch(() => undefined);
    await containers.delete(id).catch(() => undefined);
  }

  private async shareMount(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true, mode: 0o755 });
    if (!(await isMounted(dir))) await run('mount', ['--bind', dir, dir]);
    await run('mount', ['--make-rshared', dir]);
  }
}

// Managed plugins (the plugins router's backend): install by pull or create, enable (run and
// activate), disable, set, upgrade, push and remove, each move with dockerd's answers and a
// plugin event; and the volume drivers the volumes service asks for, managed or discovered.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { ConflictError, InvalidParameterError, NotFoundError, SystemError } from '../../api/errors';
import type {
  Plugin,
  PluginConfig,
  PluginCreateRequest,
  PluginFilters,
  PluginPrivilege,
  PluginPullRequest,
  PluginPushRequest,
  PluginUpgradeRequest,
} from '../../api/plugin-types';
import { checkFilterKeys } from '../../lib/filters';
import { KeyedLock } from '../../lib/keyed-lock';
import { extractTar } from '../shared/tar-extract';
import type { EventsService } from '../events/events-service';
import { referenceString } from '../shared/reference';
import { discoverPlugin } from './legacy-discovery';
import {
  applySettings,
  checkGranted,
  initialSettings,
  parsePluginConfig,
  pluginPrivileges,
} from './plugin-config';
import { fetchRemotePlugin, fetchRootfs, pushPlugin, type RegistryOptions } from './plugin-distribution';
import type { PluginProcesses } from './plugin-process';
import { activate, VolumeDriverClient, type PluginEndpoint } from './plugin-protocol';
import { normalPluginName, PluginStore } from './plugin-store';

/** What plugins need of the volumes: how many name a driver. */
export interface PluginVolumes {
  countByDriver(driver: string): Promise<number>;
}

export interface PluginsServiceDeps {
  /** <data root>/plugins */
  root: string;
  events: EventsService;
  processes: PluginProcesses;
  registry: RegistryOptions;
  /** Directories of plugins run outside svcd. */
  discoveryDirs: string[];
  callTimeoutMs: number;
  /** The volumes on disk, built before the plugins: a plugin is not disabled while some name it. */
  volumes: PluginVolumes;
  log: { warn: (message: string, fields?: Record<string, unknown>) => void };
}

const volumeDriverType = /^docker\.volumedriver\/1\./;

function capabilities(plugin: Plugin): string[] {
  return plugin.Config.Interface.Types.map((t) => t.replace(/^docker\./, '').replace(/\/.*$/, ''));
}

export class PluginsService {
  private readonly store: PluginStore;
  /** Names being installed, so that two pulls of one name do not both install it. */
  private readonly installing = new Set<string>();
  private readonly lock = new KeyedLock();

  constructor(private readonly deps: PluginsServiceDeps) {
    this.store = new PluginStore(deps.root);
  }

  /** Reads the installed plugins and starts the enabled ones again (each failure logged, as dockerd). */
  async init(): Promise<void> {
    await this.store.load();
    for (const plugin of this.store.all().filter((p) => p.Enabled)) {
      try {
        const paths = this.store.paths(plugin.Id);
        if (await this.deps.processes.running(plugin.Id)) {
          await activate(
            { socketPath: this.deps.processes.socketPath(plugin, paths) },
            this.deps.callTimeoutMs,
          );
        } else {
          await this.deps.processes.start(plugin, paths, this.deps.callTimeoutMs);
        }
      } catch (err) {
        this.deps.log.warn('plugin not restarted', { plugin: plugin.Name, error: (err as Error).message });
      }
    }
  }

  /** svcd stopping: the plugins' processes stop too (they start again with svcd). */
  async close(): Promise<void> {
    for (const plugin of this.store.all().filter((p) => p.Enabled)) {
      await this.deps.processes.stop(plugin.Id, this.store.paths(plugin.Id)).catch(() => undefined);
    }
  }

  private locked<T>(id: string, work: () => Promise<T>): Promise<T> {
    return this.lock.run(id, work);
  }

  private publish(plugin: Plugin, action: string): void {
    this.deps.events.publish('plugin', action, { id: plugin.Id, attributes: { name: plugin.Name } });
  }

  async list(filters: PluginFilters): Promise<Plugin[]> {
    checkFilterKeys(filters, ['capability', 'enabled']);
    const enabled = filters.get('enabled');
    for (const v of enabled ?? []) {
      if (v !== 'true' && v !== 'false') throw new InvalidParameterError(`Invalid filter 'enabled=${v}'`);
    }
    const wanted = filters.get('capability');
    return this.store
      .all()
      .filter(
        (p) =>
          (!enabled || enabled.includes(String(p.Enabled))) &&
          (!wanted ||
            wanted.some((c) => capabilities(p).some((have) => have.toLowerCase() === c.toLowerCase()))),
      );
  }

  async inspect(name: string): Promise<Plugin> {
    return this.store.get(name);
  }

  async privileges(
    remote: string,
    auth: string | undefined,
    signal?: AbortSignal,
  ): Promise<PluginPrivilege[]> {
    const found = await fetchRemotePlugin(remote, auth, this.deps.registry, signal);
    return pluginPrivileges(found.config);
  }

  private claimName(name: string): () => void {
    if (this.store.find(name) || this.installing.has(name))
      throw new ConflictError(`plugin ${name} already exists`);
    this.installing.add(name);
    return () => this.installing.delete(name);
  }

  /**
   * Installs the new plugin `name`: `assemble` fills a staging directory (rootfs/) and answers
   * its config and origin; the plugin appears whole, disabled, or not at all.
   */
  private async install(
    name: string,
    assemble: (dir: string) => Promise<{ config: PluginConfig; reference?: string }>,
  ): Promise<Plugin> {
    const release = this.claimName(name);
    const staged = await this.store.staging();
    try {
      const { config, reference } = await assemble(staged.dir);
      const plugin: Plugin = {
        Id: randomBytes(32).toString('hex'),
        Name: name,
        Enabled: false,
        Settings: initialSettings(config),
        ...(reference ? { PluginReference: reference } : {}),
        Config: config,
      };
      await staged.commit(plugin);
      return plugin;
    } catch (err) {
      await staged.discard();
      throw err;
    } finally {
      release();
    }
  }

  async pull(req: PluginPullRequest): Promise<void> {
    const remote = await fetchRemotePlugin(req.remote, req.auth, this.deps.registry, req.signal);
    const name = normalPluginName(req.name || req.remote);
    checkGranted(remote.config, req.privileges);
    const plugin = await this.install(name, async (dir) => {
      req.named?.(name);
      await fetchRootfs(remote, join(dir, 'rootfs'), req.emit, req.signal);
      return { config: remote.config, reference: referenceString(remote.ref) };
    });
    req.emit({ status: `Digest: ${remote.ref.digest ?? remote.ref.tag}` });
    req.emit({ status: `Installed plugin ${name}` });
    this.publish(plugin, 'install');
  }

  async upgrade(req: PluginUpgradeRequest): Promise<void> {
    const current = this.store.get(req.plugin);
    const remote = await fetchRemotePlugin(req.remote, req.auth, this.deps.registry, req.signal);
    checkGranted(remote.config, req.privileges);
    await this.locked(current.Id, async () => {
      const plugin = this.store.get(current.Id);
      if (plugin.Enabled) throw new ConflictError(`plugin must be disabled before upgrading`);
      const staged = await this.store.staging();
      try {
        await fetchRootfs(remote, join(staged.dir, 'rootfs'), req.emit, req.signal);
        await this.store.replaceRootfs(plugin.Id, staged.dir);
      } catch (err) {
        await staged.discard();
        throw err;
      }
      // The settings made with `docker plugin set` stay, as dockerd keeps them.
      await this.store.save({
        ...plugin,
        Config: remote.config,
        PluginReference: referenceString(remote.ref),
      });
      req.emit({ status: `Upgraded plugin ${plugin.Name} to ${referenceString(remote.ref)}` });
    });
  }

  async create(req: PluginCreateRequest): Promise<void> {
    const plugin = await this.install(normalPluginName(req.name), async (dir) => {
      // The context holds config.json and rootfs/ at its top: both land in the staging directory.
      await extractTar(req.context, { root: dir, dir: '/', noOverwriteDirNonDir: false, keepOwners: true });
      const configText = await readFile(join(dir, 'config.json')).catch(() => undefined);
      if (!configText) throw new InvalidParameterError('the plugin context has no config.json');
      const config = parsePluginConfig(configText);
      const rootfs = await stat(join(dir, 'rootfs')).catch(() => undefined);
      if (!rootfs?.isDirectory())
        throw new InvalidParameterError('the plugin context has no rootfs directory');
      await rm(join(dir, 'config.json'));
      return { config };
    });
    this.publish(plugin, 'create');
  }

  async push(req: PluginPushRequest): Promise<void> {
    const plugin = this.store.get(req.name);
    const tmp = join(this.deps.root, `.push-${randomBytes(8).toString('hex')}`);
    await mkdir(tmp, { recursive: true, mode: 0o700 });
    try {
      await pushPlugin(
        plugin.Name,
        plugin.Config,
        this.store.paths(plugin.Id).rootfs,
        tmp,
        req,
        this.deps.registry,
      );
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }

  async enable(name: string, timeout: number): Promise<void> {
    const found = this.store.get(name);
    await this.locked(found.Id, async () => {
      const plugin = this.store.get(found.Id);
      if (plugin.Enabled) throw new ConflictError(`plugin ${plugin.Name} is already enabled`);
      const paths = this.store.paths(plugin.Id);
      await this.deps.processes.start(plugin, paths, (timeout || 30) * 1000);
      await this.store.save({ ...plugin, Enabled: true });
      this.publish(plugin, 'enable');
    });
  }

  async disable(name: string, force: boolean): Promise<void> {
    const found = this.store.get(name);
    await this.locked(found.Id, async () => {
      const plugin = this.store.get(found.Id);
      if (!plugin.Enabled) throw new ConflictError(`plugin ${plugin.Name} is already disabled`);
      if (!force && (await this.deps.volumes.countByDriver(plugin.Name)) > 0)
        throw new ConflictError(`plugin ${plugin.Name} is in use`);
      await this.deps.processes.stop(plugin.Id, this.store.paths(plugin.Id));
      await this.store.save({ ...plugin, Enabled: false });
      this.publish(plugin, 'disable');
    });
  }

  async set(name: string, settings: string[]): Promise<void> {
    const found = this.store.get(name);
    await this.locked(found.Id, async () => {
      const plugin = this.store.get(found.Id);
      await this.store.save({
        ...plugin,
        Settings: applySettings(plugin.Config, plugin.Settings, settings, plugin.Enabled),
      });
    });
  }

  async remove(name: string, force: boolean): Promise<void> {
    const found = this.store.get(name);
    await this.locked(found.Id, async () => {
      const plugin = this.store.get(found.Id);
      if (plugin.Enabled && !force)
        throw new ConflictError(
          `plugin ${plugin.Name} is enabled: disable it first, or remove it with force`,
        );
      if (plugin.Enabled) await this.deps.processes.stop(plugin.Id, this.store.paths(plugin.Id));
      await this.store.remove(plugin.Id);
      this.publish(plugin, 'remove');
    });
  }

  /**
   * The volume driver `name`: an enabled managed plugin that is one, else a plugin discovered in
   * the plugin directories; otherwise the error dockerd answers.
   */
  async volumeDriver(name: string): Promise<VolumeDriverClient> {
    const notFound = (why: string) => new NotFoundError(`error looking up volume plugin ${name}: ${why}`);
    const plugin = this.store.find(name);
    if (plugin) {
      if (!plugin.Config.Interface.Types.some((t) => volumeDriverType.test(t)))
        throw notFound(`plugin "${name}" is not a volume driver`);
      if (!plugin.Enabled) throw notFound(`plugin ${plugin.Name} found but disabled`);
      return this.managedDriver(plugin);
    }
    const endpoint = await discoverPlugin(this.deps.discoveryDirs, name);
    if (!endpoint) throw notFound(`plugin "${name}" not found`);
    await this.checkImplements(name, endpoint);
    return new VolumeDriverClient(name, endpoint, this.deps.callTimeoutMs, (path) => path);
  }

  /** The enabled managed volume drivers, whose volumes a volume list includes (VolumeDriver.List). */
  volumeDrivers(): VolumeDriverClient[] {
    return this.store
      .all()
      .filter((p) => p.Enabled && p.Config.Interface.Types.some((t) => volumeDriverType.test(t)))
      .map((p) => this.managedDriver(p));
  }

  private managedDriver(plugin: Plugin): VolumeDriverClient {
    const paths = this.store.paths(plugin.Id);
    const propagated = plugin.Config.PropagatedMount;
    return new VolumeDriverClient(
      plugin.Name,
      { socketPath: this.deps.processes.socketPath(plugin, paths) },
      this.deps.callTimeoutMs,
      // A path under the propagated mount is the host's shared directory; any other is in the rootfs.
      (path) =>
        propagated && (path === propagated || path.startsWith(`${propagated.replace(/\/$/, '')}/`))
          ? join(paths.propagatedMount, posix.relative(propagated, path))
          : join(paths.rootfs, posix.resolve('/', path)),
    );
  }

  private async checkImplements(name: string, endpoint: PluginEndpoint): Promise<void> {
    const implemented = await activate(endpoint, this.deps.callTimeoutMs).catch((err: Error) => {
      throw new SystemError(`error looking up volume plugin ${name}: ${err.message}`);
    });
    if (!implemented.includes('VolumeDriver'))
      throw new NotFoundError(
        `error looking up volume plugin ${name}: plugin "${name}" does not implement VolumeDriver`,
      );
  }
}

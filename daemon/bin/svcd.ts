// svcd's composition root: options, data-root lock, private containerd, services, routers, listeners.
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ContainerdClient } from '../runtime/containerd/client';
import { chooseStorageDriver } from '../runtime/containerd/storage-driver';
import { ContainerdProcess } from '../runtime/containerd/process';
import type { ShimTasks } from '../runtime/containerd/shim-tasks';
import { createLogger, isLogLevel, type Logger, type LogLevel } from '../lib/logger';
import { acquirePidLock, LockHeldError, type PidLock } from '../lib/pid-lock';
import { productInfo } from '../lib/product';
import { componentsReporter } from '../engine/system/components';
import { loadEngineId } from '../engine/system/engine-id';
import { readOsFacts } from '../engine/system/os-facts';
import { SystemService } from '../engine/system/system-service';
import { EventsService } from '../engine/events/events-service';
import { EngineServer, parseListenAddress } from '../server/server';
import { systemRoutes } from '../server/routers/system/routes';
import { eventsRoutes } from '../server/routers/events/routes';
import { ImageService } from '../engine/images/image-service';
import { imagesRoutes } from '../server/routers/images/routes';
import {
  commitInto,
  containerImagesOf,
  containersForDiskUsage,
} from '../engine/containers/containers-engine';
import { ContainerRegistry } from '../engine/containers/container-registry';
import { containerUsageOf } from '../engine/containers/container-usage';
import { ContainerRootfs } from '../engine/containers/container-rootfs';
import { ContainerIOFeed } from '../engine/containers/container-io-feed';
import { ContainerLogs } from '../engine/containers/container-logs';
import { ContainersService } from '../engine/containers/containers-service';
import { createEngineContext } from '../engine/containers/engine-context';
import { readHostFacts, rootlessHostFacts } from '../runtime/oci-spec/host-facts';
import {
  insideRootlessKit,
  linkToSvcdOutside,
  rootlessPorts,
  runInRootlessKit,
  unlinkHostRunEntries,
} from './rootless';
import { groupId } from '../lib/unix-groups';
import { parseSeccompProfile, type SeccompChoice } from '../runtime/oci-spec/seccomp';
import { containersRoutes } from '../server/routers/containers/routes';
import { AttachService } from '../engine/attach/attach-service';
import { ExecService } from '../engine/exec/exec-service';
import { StatsService } from '../engine/stats/stats-service';
import { containerStreamsRoutes } from '../server/routers/container-streams/routes';
import { execRoutes } from '../server/routers/exec/routes';
import { VolumesService } from '../engine/volumes/volumes-service';
import { VolumeRecords } from '../engine/volumes/volume-records';
import { volumesRoutes } from '../server/routers/volumes/routes';
import { NetworksService } from '../engine/networks/networks-service';
import { defaultAddressPools } from '../engine/networks/address-pools';
import { ContainerNetworking } from '../engine/networks/container-networking';
import { networksRoutes } from '../server/routers/networks/routes';
import { BuildService } from '../engine/build/build-service';
import { buildContainersOf, buildImagesOf } from '../engine/build/build-engine-ports';
import { buildRoutes } from '../server/routers/build/routes';
import { distributionRoutes } from '../server/routers/distribution/routes';
import { PluginsService } from '../engine/plugins/plugins-service';
import { PluginProcesses } from '../engine/plugins/plugin-process';
import { DEFAULT_PLUGIN_DIRS } from '../engine/plugins/legacy-discovery';
import { DEFAULT_CALL_TIMEOUT_MS } from '../engine/plugins/plugin-protocol';
import { pluginsRoutes } from '../server/routers/plugins/routes';
import { parseSvcdOptions, usage, UsageError, type SvcdOptions } from './svcd-options';
import { MAX_API_VERSION } from '../api/versions';
import {
  createSwarmEngine,
  openCluster,
  swarmMembershipOf,
  type SwarmEngine,
} from '../engine/swarm/swarm-engine';
import { swarmNetworksOf, taskContainersOf } from '../engine/swarm/swarm-engine-ports';
import { swarmRoutes } from '../server/routers/swarm/routes';
import { nodesRoutes } from '../server/routers/nodes/routes';
import { servicesRoutes } from '../server/routers/services/routes';
import { tasksRoutes } from '../server/routers/tasks/routes';
import { secretsRoutes } from '../server/routers/secrets/routes';
import { configsRoutes } from '../server/routers/configs/routes';

/** The containerd namespace every svcd object lives in. */
const namespace = 'svc';

/** Settings a --config file (JSON, as Docker's daemon.json) may hold. */
interface ConfigFile {
  insecureRegistries: string[];
  logLevel?: LogLevel;
  bip?: string;
  pools?: Array<{ base: string; size: number }>;
}

async function readConfigFile(file: string | undefined): Promise<ConfigFile> {
  const config: ConfigFile = { insecureRegistries: [] };
  if (!file) return config;
  const raw = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'insecure-registries' && Array.isArray(value)) {
      config.insecureRegistries = value.map(String);
    } else if (key === 'log-level' && typeof value === 'string' && isLogLevel(value)) {
      config.logLevel = value;
    } else if (key === 'bip' && typeof value === 'string') {
      config.bip = value;
    } else if (
      key === 'default-address-pools' &&
      Array.isArray(value) &&
      value.every(
        (p: { base?: unknown; size?: unknown }) => typeof p?.base === 'string' && typeof p?.size === 'number',
      )
    ) {
      config.pools = value as Array<{ base: string; size: number }>;
    } else {
      throw new UsageError(`${file}: unknown or invalid setting ${JSON.stringify(key)}`);
    }
  }
  return config;
}

/** --seccomp-profile read as dockerd reads it: a file is read once, at start. */
async function readSeccompOption(option: string | undefined): Promise<SeccompChoice | undefined> {
  if (option === undefined || option === 'unconfined') return option;
  const text = await readFile(option, 'utf8').catch((err: Error) => {
    throw new Error(`opening seccomp profile (${option}) failed: ${err.message}`);
  });
  return parseSeccompProfile(text);
}

/** --group's gid (an unknown group stops svcd); without it, the `svc` group's when there is one. */
async function socketGroup(option: string | undefined): Promise<number | undefined> {
  const gid = await groupId(option ?? 'svc');
  if (gid === undefined && option !== undefined) throw new Error(`group ${option} not found (--group)`);
  return gid;
}

/** The command line's settings with the config file's: its registries added, its level unless one was given. */
function withConfigFile(
  opts: SvcdOptions,
  config: ConfigFile,
): { registries: string[]; level: LogLevel; bip?: string; pools?: ConfigFile['pools'] } {
  return {
    registries: [...opts.insecureRegistries, ...config.insecureRegistries],
    level: opts.logLevel ?? config.logLevel ?? 'info',
    bip: config.bip,
    pools: config.pools,
  };
}

interface Running {
  log: Logger;
  /** SIGHUP, as dockerd's: the config file read again and applied, then a daemon reload event. */
  reload?: () => Promise<void>;
  lock?: PidLock;
  containerd?: ContainerdProcess;
  client?: ContainerdClient;
  shims?: ShimTasks;
  server?: EngineServer;
  containers?: ContainersService;
  networks?: NetworksService;
  plugins?: PluginsService;
  swarm?: SwarmEngine;
}

async function start(argv: string[], running: Running): Promise<string> {
  const opts = parseSvcdOptions(argv);
  const settings = withConfigFile(opts, await readConfigFile(opts.configFile));
  // One list, shared with the image service and /info, so that a reload reaches both.
  const insecureRegistries = settings.registries;
  const log = createLogger(settings.level, 'svcd');
  running.log = log;
  const dataRoot = resolve(opts.dataRoot);
  const defaultSeccomp = await readSeccompOption(opts.seccompProfile);
  const group = await socketGroup(opts.group);
  await mkdir(dataRoot, { recursive: true, mode: 0o711 });
  if (opts.rootless) {
    await unlinkHostRunEntries();
    linkToSvcdOutside(dataRoot, () => {
      log.warn('svcd outside the namespace is gone; shutting down');
      process.kill(process.pid, 'SIGTERM');
    });
  }
  running.lock = await acquirePidLock(join(dataRoot, 'svcd.pid'));

  // Inside the user namespace when rootless: the probe asks the kernel what containerd will ask.
  const storageDriver = await chooseStorageDriver(join(dataRoot, 'tmp'), opts.storageDriver);
  log.info('storage driver', { driver: storageDriver.name, reason: storageDriver.reason });
  const containerd = new ContainerdProcess({ dir: join(dataRoot, 'containerd') });
  running.containerd = containerd;
  containerd.on('exit', (e) =>
    log.warn('containerd exited; restarting', { pid: e.pid, code: e.code, signal: e.signal }),
  );
  containerd.on('restarted', (e) => log.info('containerd restarted', { pid: e.pid }));
  containerd.on('restart-failed', (err) => log.error('containerd restart failed', { error: err.message }));
  await containerd.start();
  const client = ContainerdClient.connect(
    containerd.address,
    namespace,
    storageDriver.name,
    containerd.localContent,
  );
  running.client = client;
  await client.namespaces.ensure(namespace);

  const product = productInfo();
  const events = new EventsService();
  // First: the services containers use ask it which containers use what.
  const registry = new ContainerRegistry();
  const rootfs = new ContainerRootfs(client);
  const containerUsage = containerUsageOf(registry, rootfs);
  const images = new ImageService({
    client,
    events,
    tempDir: join(dataRoot, 'tmp', 'images'),
    insecureRegistries,
    userAgent: `svcd/${product.version}`,
    containers: containerUsage,
  });
  const containersLog = log.child('containers');
  // The volumes on disk before the plugins, which ask how many volumes name a driver; the volumes
  // service after them, with their drivers.
  const volumeRecords = new VolumeRecords(join(dataRoot, 'volumes'), events);
  const hostFacts = opts.rootless ? await rootlessHostFacts(await readHostFacts()) : await readHostFacts();
  const pluginsClient = client.withNamespace(`${namespace}.plugins`);
  await pluginsClient.namespaces.ensure(pluginsClient.namespace);
  const plugins = new PluginsService({
    root: join(dataRoot, 'plugins'),
    events,
    processes: new PluginProcesses({
      client: pluginsClient,
      runcRoot: containerd.runcRoot,
      cgroupsUnavailable: !!hostFacts.cgroupsUnavailable,
    }),
    registry: { insecureRegistries, userAgent: `svcd/${product.version}` },
    discoveryDirs: opts.pluginDirs.length ? opts.pluginDirs : DEFAULT_PLUGIN_DIRS,
    callTimeoutMs: opts.pluginTimeout ? opts.pluginTimeout * 1000 : DEFAULT_CALL_TIMEOUT_MS,
    volumes: volumeRecords,
    log: log.child('plugins'),
  });
  running.plugins = plugins;
  // Before the containers: a container restarted with svcd may mount a plugin's volume.
  await plugins.init();
  const volumes = new VolumesService({ records: volumeRecords, events, containers: containerUsage, plugins });
  // The cluster state before the networks: they ask whether this engine is in a swarm and what a
  // service's name is; the swarm engine itself comes after the containers its tasks run in.
  const cluster = await openCluster(dataRoot, events);
  const networks = new NetworksService({
    dataRoot,
    events,
    log: log.child('networks'),
    defaultBridge: opts.bridge,
    bip: opts.bip ?? settings.bip,
    pools: settings.pools ?? defaultAddressPools,
    containers: containerUsage,
    swarm: swarmMembershipOf(cluster),
  });
  await networks.init();
  running.networks = networks;
  const context = createEngineContext({
    client,
    dataRoot,
    runcRoot: containerd.runcRoot,
    containerdState: containerd.state,
    events,
    host: hostFacts,
    defaultSeccomp,
    registry,
    rootfs,
    images: containerImagesOf(images),
    volumes,
    networking: new ContainerNetworking(
      networks,
      dataRoot,
      opts.rootless ? rootlessPorts(dataRoot) : undefined,
    ),
    log: containersLog,
  });
  const ioFeed = new ContainerIOFeed();
  const logs = new ContainerLogs(context.paths, containersLog, ioFeed);
  running.shims = context.shims;
  const exec = new ExecService(context);
  const containers = new ContainersService({
    context,
    ioFeed,
    logs,
    execIdsOf: (containerId) => exec.idsOf(containerId),
    commit: commitInto(images),
  });
  running.containers = containers;
  // Re-attaches to the containers still running and records the exits missed while svcd was away.
  await containers.init();
  await networks.resumeResolvers();
  const attach = new AttachService({ registry, client, events, ioFeed, logs });
  const stats = new StatsService({ registry, client });
  const host = readOsFacts();
  const engineId = await loadEngineId(dataRoot);
  const swarm = createSwarmEngine({
    cluster,
    events,
    host: {
      hostname: host.hostname,
      ncpu: host.ncpu,
      memTotal: host.memTotal,
      engineVersion: product.version,
    },
    containers: taskContainersOf(containers, events, (ref, req) => attach.logs(ref, req), images),
    networks: swarmNetworksOf(networks),
    log: log.child('swarm'),
  });
  running.swarm = swarm;
  const system = new SystemService({
    product,
    host,
    cgroup: hostFacts.cgroup,
    dataRoot,
    engineId,
    components: await componentsReporter(() => client.version()),
    containers: containerUsage,
    inventory: {
      imagesForDiskUsage: () => images.diskUsage(),
      containersForDiskUsage: () => containersForDiskUsage(containers),
      volumesForDiskUsage: () => volumes.diskUsage(),
    },
    eventListeners: () => events.listenerCount,
    insecureRegistries,
    seccompProfile: opts.seccompProfile ?? 'default',
    rootless: opts.rootless,
    cgroupDriver: hostFacts.cgroupsUnavailable ? 'none' : 'cgroupfs',
    storageDriver,
    swarm: () => swarm.swarm.info(),
  });

  const build = new BuildService({
    dataRoot,
    images: buildImagesOf(images),
    containers: buildContainersOf(containers, attach, context, images),
    pruneImages: (ids) => images.removeUnused(ids),
  });

  const server = new EngineServer({
    routes: [
      ...systemRoutes(system),
      ...eventsRoutes(events),
      ...imagesRoutes(images),
      ...containersRoutes(containers),
      ...containerStreamsRoutes({
        tty: (ref) => attach.tty(ref),
        logs: (ref, req) => attach.logs(ref, req),
        attach: (ref, req) => attach.attach(ref, req),
        stats: (ref, req) => stats.stats(ref, req),
      }),
      ...execRoutes(exec),
      ...volumesRoutes(volumes),
      ...networksRoutes(networks, containers),
      ...buildRoutes(build),
      ...distributionRoutes(images),
      ...pluginsRoutes(plugins),
      ...swarmRoutes(swarm.swarm),
      ...nodesRoutes(swarm.nodes),
      ...servicesRoutes(swarm.services),
      ...tasksRoutes(swarm.services),
      ...secretsRoutes(swarm.secrets),
      ...configsRoutes(swarm.configs),
    ],
    logger: log.child('api'),
    serverHeader: `Svc/${product.version} (linux)`,
    experimental: false,
    tls:
      opts.tlsCert && opts.tlsKey ? { cert: opts.tlsCert, key: opts.tlsKey, ca: opts.tlsCaCert } : undefined,
    socketGroup: group,
  });
  running.server = server;
  running.reload = async () => {
    try {
      const next = withConfigFile(opts, await readConfigFile(opts.configFile));
      insecureRegistries.splice(0, insecureRegistries.length, ...next.registries);
      log.setLevel(next.level);
      events.publish('daemon', 'reload', {
        id: engineId,
        attributes: {
          name: host.hostname,
          'insecure-registries': `[${next.registries.join(' ')}]`,
          'log-level': next.level,
        },
      });
      log.info('configuration reloaded', { file: opts.configFile ?? '' });
    } catch (err) {
      log.error('configuration not reloaded, the running one is kept', { error: (err as Error).message });
    }
  };
  for (const address of opts.hosts) await server.listen(parseListenAddress(address));
  return `svcd ${product.version} ready: API ${MAX_API_VERSION} on ${opts.hosts.join(' ')} (data root ${dataRoot})`;
}

async function shutdown(running: Running): Promise<void> {
  await running.server?.close();
  await running.swarm?.close();
  await running.containers?.close();
  await running.plugins?.close();
  await running.networks?.close();
  running.client?.close();
  running.shims?.close();
  // containerd stops; its shims, and so the containers, keep running for the next svcd.
  await running.containerd?.stop();
  await running.lock?.release();
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  // Output to a parent that is gone (the app killed, its pipes closed) fails with EPIPE: that must
  // not take svcd down, or a SIGTERM then would leave containerd and the shim running.
  for (const out of [process.stdout, process.stderr])
    out.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
    });
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  // A rootless svcd outside its namespace only starts itself inside one (its errors are reported below).
  const outside = (() => {
    try {
      const opts = parseSvcdOptions(argv);
      return opts.rootless && !insideRootlessKit() ? opts : undefined;
    } catch {
      return undefined;
    }
  })();
  if (outside) {
    const inner = argv.includes('--rootless') ? argv : [...argv, '--rootless'];
    await runInRootlessKit(inner, outside.dataRoot).catch((err: Error) => {
      process.stderr.write(`svcd: ${err.message}\n`);
      process.exit(1);
    });
  }
  const running: Running = { log: createLogger('info', 'svcd') };
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    running.log.info('shutting down', { signal });
    shutdown(running).then(
      () => process.exit(0),
      (err: Error) => {
        running.log.error('shutdown failed', { error: err.message });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // Node's default for SIGHUP is to exit on the spot; dockerd reloads its configuration.
  process.on('SIGHUP', () => void running.reload?.());
  try {
    const ready = await start(argv, running);
    process.stdout.write(`${ready}\n`);
  } catch (err) {
    const message =
      err instanceof LockHeldError
        ? `data root is in use by another svcd (pid ${err.pid}); stop it first`
        : err instanceof Error
          ? err.message
          : String(err);
    process.stderr.write(`svcd: ${message}\n`);
    if (err instanceof UsageError) process.stderr.write(`${usage}\n`);
    // Release only what this attempt took: a held lock belongs to the other svcd.
    await shutdown(err instanceof LockHeldError ? ({} as Running) : running).catch(() => undefined);
    process.exit(err instanceof UsageError ? 2 : 1);
  }
}

void main();

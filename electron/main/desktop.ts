// The app without a window: gateway first (so a UI can show "starting" at once), then the
// supervisor in the background. Shared by web mode and the Electron main process.
import { join } from 'node:path';
import type { EngineChoice, EngineModePreference } from '../../daemon/api/desktop-types';
import { isHostRoot, systemSvcdSocket } from '../../daemon/lib/svcd-launch';
import { startGateway, type Gateway, type GatewayOptions } from './gateway/gateway';
import {
  defaultDataDir,
  engineService,
  findRepoRoot,
  ownEngineSocket,
  registryService,
  type DesktopPaths,
} from './supervisor/default-services';
import { chooseEngine } from './supervisor/engine-choice';
import { Supervisor } from './supervisor/supervisor';
import { SettingsFile } from './desktop-settings';
import { AddedEngines } from './engines/added-engines';
import { AddedRegistries } from './registries/added-registries';
import { stopRunningContainers } from './stop-containers';

export interface DesktopOptions extends Partial<DesktopPaths> {
  /** Gateway port; 0 picks a free one. */
  port?: number;
}

export interface Desktop {
  supervisor: Supervisor;
  gateway: Gateway;
  /** The engine in use and why (engine-choice.ts). */
  readonly engine: EngineChoice;
  /** What DOCKER_HOST takes to reach this engine with the docker CLI. */
  readonly dockerHost: string;
  /** Keeps the pick and moves the app onto that engine (the app's own is stopped when left). */
  selectEngine(preference: EngineModePreference): Promise<EngineChoice>;
  stop(): Promise<void>;
}

/**
 * Options from the command line (--data-dir, --engine-socket, --engine-bridge, --system-socket,
 * --registry-port, --port) and env.
 */
export function desktopOptionsFrom(argv: string[], env: NodeJS.ProcessEnv): DesktopOptions {
  const arg = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const num = (v: string | undefined) => (v ? Number(v) : undefined);
  return {
    dataDir: arg('data-dir') ?? env.SVC_DESKTOP_DATA_DIR,
    engineSocket: arg('engine-socket') ?? env.SVC_DESKTOP_ENGINE_SOCKET,
    systemSocket: arg('system-socket') ?? env.SVC_DESKTOP_SYSTEM_SOCKET,
    engineBridge: arg('engine-bridge') ?? env.SVC_DESKTOP_ENGINE_BRIDGE,
    registryPort: num(arg('registry-port') ?? env.SVC_DESKTOP_REGISTRY_PORT),
    port: num(arg('port') ?? env.SVC_DESKTOP_PORT),
  };
}

export async function startDesktop(options: DesktopOptions = {}): Promise<Desktop> {
  const root = options.root ?? findRepoRoot(__dirname);
  const dataDir = options.dataDir ?? defaultDataDir();
  const paths: DesktopPaths = { ...options, root, dataDir };
  const settings = new SettingsFile(dataDir);
  const choose = (preference: EngineModePreference) =>
    chooseEngine({
      preference,
      isRoot: isHostRoot(),
      systemSocket: options.systemSocket ?? systemSvcdSocket,
      ownSocket: ownEngineSocket(paths),
    });
  let engine = await choose(settings.readEngineMode());
  const registry = registryService(paths);
  const registryUrl = registry.health.kind === 'http' ? new URL(registry.health.url).origin : '';
  const supervisor = new Supervisor([engineService(paths, engine), registry]);
  let switching = Promise.resolve();
  // Read by the gateway at each request: a switch of engine changes its socket here.
  const gatewayOptions: GatewayOptions = {
    engineSocket: engine.socket,
    registryUrl,
    rendererDir: join(root, 'renderer', 'dist'),
    port: options.port,
    services: supervisor,
    settings,
    engines: new AddedEngines(settings),
    engineMode: { current: () => engine, select: (p) => selectEngine(p) },
    registries: new AddedRegistries(settings, registryUrl),
  };
  async function selectEngine(preference: EngineModePreference): Promise<EngineChoice> {
    settings.writeEngineMode(preference);
    const previous = engine;
    engine = await choose(preference);
    if (engine.mode !== previous.mode || engine.socket !== previous.socket) {
      gatewayOptions.engineSocket = engine.socket;
      // In the background, one switch after the other; the state stream shows its progress.
      const spec = engineService(paths, engine);
      switching = switching.then(() => supervisor.replace(spec));
    }
    return engine;
  }
  const gateway = await startGateway(gatewayOptions);
  void supervisor.start();
  return {
    supervisor,
    gateway,
    get engine() {
      return engine;
    },
    get dockerHost() {
      return `unix://${engine.socket}`;
    },
    selectEngine,
    async stop() {
      await gateway.close();
      await switching;
      const svcd = supervisor.state('svcd');
      // Only an engine we started is ours to empty; an adopted one belongs to someone else.
      if (settings.read().stopContainersOnQuit && svcd?.status === 'up' && !svcd.adopted) {
        const failures = await stopRunningContainers(engine.socket);
        for (const f of failures) process.stderr.write(`svc-desktop: could not stop ${f}\n`);
      }
      await supervisor.stop();
    },
  };
}

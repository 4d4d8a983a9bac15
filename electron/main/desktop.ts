// The app without a window: gateway first (so a UI can show "starting" at once), then the
// supervisor in the background. Shared by web mode and the Electron main process.
import { join } from 'node:path';
import { startGateway, type Gateway } from './gateway/gateway';
import {
  desktopServices,
  defaultDataDir,
  findRepoRoot,
  type DesktopPaths,
} from './supervisor/default-services';
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
  /** What DOCKER_HOST takes to reach this engine with the docker CLI. */
  dockerHost: string;
  stop(): Promise<void>;
}

/** Options from the command line (--data-dir, --engine-socket, --registry-port, --port) and env. */
export function desktopOptionsFrom(argv: string[], env: NodeJS.ProcessEnv): DesktopOptions {
  const arg = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const num = (v: string | undefined) => (v ? Number(v) : undefined);
  return {
    dataDir: arg('data-dir') ?? env.SVC_DESKTOP_DATA_DIR,
    engineSocket: arg('engine-socket') ?? env.SVC_DESKTOP_ENGINE_SOCKET,
    registryPort: num(arg('registry-port') ?? env.SVC_DESKTOP_REGISTRY_PORT),
    port: num(arg('port') ?? env.SVC_DESKTOP_PORT),
  };
}

export async function startDesktop(options: DesktopOptions = {}): Promise<Desktop> {
  const root = options.root ?? findRepoRoot(__dirname);
  const dataDir = options.dataDir ?? defaultDataDir();
  const specs = desktopServices({ ...options, root, dataDir });
  const supervisor = new Supervisor(specs);
  const settings = new SettingsFile(dataDir);
  const engine = specs[0].health;
  const registry = specs[1].health;
  const engineSocket = engine.kind === 'unix' ? engine.socketPath : '';
  const registryUrl = registry.kind === 'http' ? new URL(registry.url).origin : '';
  const gateway = await startGateway({
    engineSocket,
    registryUrl,
    rendererDir: join(root, 'renderer', 'dist'),
    port: options.port,
    services: supervisor,
    settings,
    engines: new AddedEngines(settings),
    registries: new AddedRegistries(settings, registryUrl),
  });
  void supervisor.start();
  return {
    supervisor,
    gateway,
    dockerHost: `unix://${engineSocket}`,
    async stop() {
      await gateway.close();
      const svcd = supervisor.state('svcd');
      // Only an engine we started is ours to empty; an adopted one belongs to someone else.
      if (settings.read().stopContainersOnQuit && svcd?.status === 'up' && !svcd.adopted) {
        const failures = await stopRunningContainers(engineSocket);
        for (const f of failures) process.stderr.write(`svc-desktop: could not stop ${f}\n`);
      }
      await supervisor.stop();
    },
  };
}

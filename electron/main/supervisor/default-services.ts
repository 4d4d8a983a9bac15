// The two servers the desktop app runs, as ServiceSpecs: svcd on a unix socket and svc-registry
// on loopback, both from the compiled tree, with data roots under one desktop data directory.
// In system mode svcd is the system's (engine-choice.ts): watched, never started.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { EngineChoice } from '../../../daemon/api/desktop-types';
import { type ServiceSpec } from './managed-service';
import { registryEnv, registryNodeFlags } from '../../../daemon/lib/registry-launch';
import { defaultSvcdSocket, isHostRoot, svcdNodeFlags } from '../../../daemon/lib/svcd-launch';

export interface DesktopPaths {
  /** Repository root (holds package.json and build/). */
  root: string;
  /** Default ~/.local/share/svc-desktop (XDG_DATA_HOME honoured). */
  dataDir?: string;
  /** The app's own svcd (ownEngineSocket); one already running there is adopted. */
  engineSocket?: string;
  /** The system svcd's socket (engine-choice.ts); default /run/svc/svcd.sock. */
  systemSocket?: string;
  /** The app's own svcd's default bridge; default svcd's (svc0). A second app on one host needs another. */
  engineBridge?: string;
  /** Default 5000, the registry's usual port. */
  registryPort?: number;
}

export function defaultDataDir(): string {
  const base = process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(base, 'svc-desktop');
}

/** Walks up from a compiled or source file to the folder holding package.json. */
export function findRepoRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${from}`);
    dir = up;
  }
  return dir;
}

/** Packaged, process.execPath is Electron's binary: this makes it run the servers as plain Node. */
function serverEnv(): NodeJS.ProcessEnv {
  return { ...process.env, ELECTRON_RUN_AS_NODE: '1' };
}

function binOf(paths: DesktopPaths, name: string): string {
  return join(paths.root, 'build', 'daemon', 'bin', `${name}.js`);
}

/**
 * The app's own svcd's socket: rootless svcd's default under $XDG_RUNTIME_DIR; as root one in the
 * app's data directory, never the system engine's /run/svc/svcd.sock (svcd's own default as root),
 * which the app would otherwise later take for a system engine.
 */
export function ownEngineSocket(paths: DesktopPaths): string {
  if (paths.engineSocket) return paths.engineSocket;
  return isHostRoot() ? join(paths.dataDir ?? defaultDataDir(), 'svcd.sock') : defaultSvcdSocket();
}

/** svcd as the chosen mode has it: the app's own (started, supervised) or the system's (watched). */
export function engineService(
  paths: DesktopPaths,
  engine: Pick<EngineChoice, 'mode' | 'socket'>,
): ServiceSpec {
  const dataDir = paths.dataDir ?? defaultDataDir();
  const socket = engine.socket;
  const health = { kind: 'unix', socketPath: socket, path: '/_ping' } as const;
  const logFile = join(dataDir, 'logs', 'svcd.log');
  if (engine.mode === 'system') {
    return {
      name: 'svcd',
      command: '',
      args: [],
      health,
      // Its log is the system's (journalctl -u svcd), not the app's.
      logFile: '',
      adopt: true,
      external: `the system engine (the svcd service) does not answer on ${socket}`,
    };
  }
  const bin = binOf(paths, 'svcd');
  // Not root, svcd runs itself inside rootlesskit (rootless); as root it runs as it is.
  return {
    name: 'svcd',
    command: process.execPath,
    args: [
      ...svcdNodeFlags,
      bin,
      '--data-root',
      join(dataDir, 'engine'),
      '--host',
      `unix://${socket}`,
      ...(paths.engineBridge ? ['--bridge', paths.engineBridge] : []),
    ],
    cwd: paths.root,
    env: serverEnv(),
    health,
    logFile,
    adopt: true,
    requires: [bin],
    ensureDirs: [dirname(socket), join(dataDir, 'engine')],
  };
}

export function registryService(paths: DesktopPaths): ServiceSpec {
  const dataDir = paths.dataDir ?? defaultDataDir();
  const port = paths.registryPort ?? 5000;
  const bin = binOf(paths, 'svc-registry');
  return {
    name: 'svc-registry',
    command: process.execPath,
    args: [
      ...registryNodeFlags,
      bin,
      'serve',
      '--data',
      join(dataDir, 'registry'),
      '--addr',
      `127.0.0.1:${port}`,
    ],
    cwd: paths.root,
    env: { ...serverEnv(), ...registryEnv },
    health: { kind: 'http', url: `http://127.0.0.1:${port}/v2/` },
    logFile: join(dataDir, 'logs', 'svc-registry.log'),
    adopt: true,
    requires: [bin],
    ensureDirs: [join(dataDir, 'registry')],
  };
}

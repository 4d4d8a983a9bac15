// The two servers the desktop app runs, as ServiceSpecs: svcd on a unix socket and svc-registry
// on loopback, both from the compiled tree, with data roots under one desktop data directory.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { type ServiceSpec } from './managed-service';
import { registryNodeFlags } from '../../../daemon/lib/registry-launch';
import { defaultSvcdSocket, svcdNodeFlags } from '../../../daemon/lib/svcd-launch';

export interface DesktopPaths {
  /** Repository root (holds package.json and build/). */
  root: string;
  /** Default ~/.local/share/svc-desktop (XDG_DATA_HOME honoured). */
  dataDir?: string;
  /** Default: svcd's own default socket, so an already-running svcd is found and adopted. */
  engineSocket?: string;
  /** svcd's default bridge; default its own (svc0). A second app on one host needs another. */
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

export function desktopServices(paths: DesktopPaths): ServiceSpec[] {
  const dataDir = paths.dataDir ?? defaultDataDir();
  const socket = paths.engineSocket ?? defaultSvcdSocket();
  const port = paths.registryPort ?? 5000;
  // Packaged, process.execPath is Electron's binary: this makes it run the servers as plain Node.
  const env = { ...process.env, ELECTRON_RUN_AS_NODE: '1' };
  const bin = (name: string) => join(paths.root, 'build', 'daemon', 'bin', `${name}.js`);
  return [
    {
      name: 'svcd',
      command: process.execPath,
      args: [
        ...svcdNodeFlags,
        bin('svcd'),
        '--data-root',
        join(dataDir, 'engine'),
        '--host',
        `unix://${socket}`,
        ...(paths.engineBridge ? ['--bridge', paths.engineBridge] : []),
      ],
      cwd: paths.root,
      env,
      health: { kind: 'unix', socketPath: socket, path: '/_ping' },
      logFile: join(dataDir, 'logs', 'svcd.log'),
      adopt: true,
      requires: [bin('svcd')],
      ensureDirs: [dirname(socket), join(dataDir, 'engine')],
    },
    {
      name: 'svc-registry',
      command: process.execPath,
      args: [
        ...registryNodeFlags,
        bin('svc-registry'),
        'serve',
        '--data',
        join(dataDir, 'registry'),
        '--addr',
        `127.0.0.1:${port}`,
      ],
      cwd: paths.root,
      env,
      health: { kind: 'http', url: `http://127.0.0.1:${port}/v2/` },
      logFile: join(dataDir, 'logs', 'svc-registry.log'),
      adopt: true,
      requires: [bin('svc-registry')],
      ensureDirs: [join(dataDir, 'registry')],
    },
  ];
}

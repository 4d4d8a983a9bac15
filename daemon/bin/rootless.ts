// Rootless svcd: started by a user (or with --rootless), svcd runs itself again inside a user,
// mount and network namespace made by rootlesskit, mapped onto the user's subordinate IDs
// (newuidmap/newgidmap, /etc/subuid, /etc/subgid). There it is uid 0 of the namespace and starts
// containerd, the shims and runc as usual; slirp4netns links the namespace to the outside.
import { spawn } from 'node:child_process';
import { access, constants, lstat, mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { RootlessPorts } from '../engine/networks/rootless-ports';
import { routeLoopbackThrough } from '../lib/http-client';
import { holdLifeline, HostLoopbackAgent, serveHostLoopback } from '../lib/host-loopback-relay';
import { RootlessKitPorts } from '../runtime/rootlesskit/port-api';

/** The programs the namespace needs and the Debian package of each. */
const tools: ReadonlyArray<readonly [string, string]> = [
  ['rootlesskit', 'rootlesskit'],
  ['slirp4netns', 'slirp4netns'],
  ['newuidmap', 'uidmap'],
  ['newgidmap', 'uidmap'],
];

/** Inside the namespace rootlesskit made: it tells its child who started it. */
export function insideRootlessKit(): boolean {
  return process.env.ROOTLESSKIT_PARENT_EUID !== undefined;
}

async function onPath(name: string): Promise<boolean> {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) {
    if (
      await access(join(dir, name), constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return true;
  }
  return false;
}

/** Refuses to start with the packages to install, rather than rootlesskit's first error. */
async function checkTools(): Promise<void> {
  const missing: string[] = [];
  for (const [name, pkg] of tools) if (!(await onPath(name)) && !missing.includes(pkg)) missing.push(pkg);
  if (missing.length > 0)
    throw new Error(
      `rootless svcd needs ${missing.join(', ')}: apt-get install ${missing.join(' ')} (node scripts/setup.mjs says what else is missing)`,
    );
}

/**
 * The namespace's options. /etc and /run are copied up (svcd and the CNI plugins write there,
 * the host's stay untouched); host loopback is not reachable from containers; published ports
 * are forwarded by rootlesskit's builtin driver.
 */
/** Where svcd outside the namespace relays to the host's loopback (see host-loopback-relay). */
function hostLoopbackPath(dataRoot: string): string {
  return join(dataRoot, 'host-loopback.sock');
}

function rootlessKitStateDir(dataRoot: string): string {
  return join(dataRoot, 'rootlesskit');
}

function rootlessKitArgs(stateDir: string): string[] {
  return [
    `--state-dir=${stateDir}`,
    '--net=slirp4netns',
    '--mtu=65520',
    '--slirp4netns-sandbox=auto',
    '--slirp4netns-seccomp=auto',
    '--disable-host-loopback',
    '--port-driver=builtin',
    '--copy-up=/etc',
    '--copy-up=/run',
  ];
}

/**
 * Runs this svcd again inside rootlesskit with `argv` (which resolves the user's data root and
 * socket: inside, uid 0 keeps the user's defaults) and exits as it exits. Signals are passed on.
 */
export async function runInRootlessKit(argv: string[], dataRoot: string): Promise<never> {
  await checkTools();
  await mkdir(dataRoot, { recursive: true, mode: 0o711 });
  const relay = await serveHostLoopback(hostLoopbackPath(dataRoot));
  relay.unref();
  const self = [...process.execArgv, process.argv[1], ...argv];
  const child = spawn(
    'rootlesskit',
    [...rootlessKitArgs(rootlessKitStateDir(dataRoot)), process.execPath, ...self],
    { stdio: 'inherit' },
  );
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, () => child.kill(signal));
  }
  const code = await new Promise<number>((resolve) =>
    child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : 1))),
  );
  process.exit(code);
}

/**
 * Inside the namespace, the copied-up /run links back to the host's entries, which belong to
 * the host's root: containerd's shim sockets (/run/containerd/s, fixed in containerd) and
 * iptables' lock (/run/xtables.lock) would be refused. Dropping the links (only links, in the
 * namespace's own /run) lets containerd and the CNI plugins make their own.
 */
export async function unlinkHostRunEntries(): Promise<void> {
  for (const path of ['/run/containerd', '/run/xtables.lock']) {
    const stat = await lstat(path).catch(() => undefined);
    if (stat?.isSymbolicLink()) await unlink(path);
  }
}

/** Published ports through the API of the rootlesskit this svcd runs in (it names its state dir). */
export function rootlessPorts(dataRoot: string): RootlessPorts {
  return new RootlessPorts(
    new RootlessKitPorts(process.env.ROOTLESSKIT_STATE_DIR ?? rootlessKitStateDir(dataRoot)),
  );
}

/**
 * Inside the namespace: registries on the host's loopback are reached through svcd outside, and
 * `onOutsideGone` is called when svcd outside is (killed, its relay closes).
 */
export function linkToSvcdOutside(dataRoot: string, onOutsideGone: () => void): void {
  routeLoopbackThrough(new HostLoopbackAgent(hostLoopbackPath(dataRoot)));
  holdLifeline(hostLoopbackPath(dataRoot), onOutsideGone);
}

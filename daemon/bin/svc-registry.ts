// Composition root of svc-registry: `serve [--data DIR] [--addr HOST:PORT] [--config FILE]` and
// `gc [--data DIR] [--config FILE] [--dry-run]`. Storage and address may come from the config.
import { mkdirSync, statSync, accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import { isIP } from 'node:net';
import { authorizerFromConfig } from '../registry/auth/authorizer-from-config';
import { loadConfig, type RegistryConfig } from '../registry/config';
import { parseDuration } from '../registry/distribution-config';
import type { StorageDriver } from '../registry/storage/driver';
import { EventSink } from '../registry/events';
import { createRegistryServer } from '../registry/server';
import { driverFromConfig } from '../registry/storage/driver-from-config';
import { collectGarbage, defaultGracePeriodMs } from '../registry/storage/gc';
import { RegistryStorage } from '../registry/storage/registry-storage';

const usage = `usage: svc-registry serve [--data DIR] [--addr 127.0.0.1:PORT] [--config FILE]
       svc-registry gc [--data DIR] [--config FILE] [--dry-run] [--grace-period 1h]
--data is the storage directory unless the config names storage (filesystem or s3);
--addr overrides the config's http.addr.`;

class UsageError extends Error {}

function parseArgs(argv: string[]): { command: string; flags: Map<string, string | true> } {
  const [command, ...rest] = argv;
  const flags = new Map<string, string | true>();
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument ${arg}`);
    const eq = arg.indexOf('=');
    if (eq > 0) flags.set(arg.slice(2, eq), arg.slice(eq + 1));
    else if (arg === '--dry-run') flags.set('dry-run', true);
    else if (i + 1 < rest.length) flags.set(arg.slice(2), rest[++i]);
    else throw new UsageError(`${arg} needs a value`);
  }
  return { command: command ?? '', flags };
}

function stringFlag(flags: Map<string, string | true>, name: string, required: true): string;
function stringFlag(flags: Map<string, string | true>, name: string, required: false): string | undefined;
function stringFlag(flags: Map<string, string | true>, name: string, required: boolean): string | undefined {
  const value = flags.get(name);
  if (value === undefined && required) throw new UsageError(`--${name} is required`);
  if (value === true) throw new UsageError(`--${name} needs a value`);
  return value;
}

function checkFlags(flags: Map<string, string | true>, allowed: string[]): void {
  for (const name of flags.keys())
    if (!allowed.includes(name)) throw new UsageError(`unknown option --${name}`);
}

/** The data directory, created when absent; refuses a file or an unwritable directory. */
function openDataDir(path: string): string {
  const dir = resolve(path);
  try {
    mkdirSync(dir, { recursive: true });
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
    accessSync(dir, constants.R_OK | constants.W_OK);
  } catch (err) {
    throw new Error(`data directory ${dir} is not usable: ${(err as Error).message}`, { cause: err });
  }
  return dir;
}

/** The driver on --data when given, on the config's storage otherwise. */
function openDriver(config: RegistryConfig, flags: Map<string, string | true>): StorageDriver {
  const dir = stringFlag(flags, 'data', false);
  if (dir === undefined && !config.storage)
    throw new UsageError('--data is required (or storage in the config)');
  return driverFromConfig(config, dir === undefined ? undefined : () => openDataDir(dir));
}

function parseAddr(addr: string): { host: string; port: number } {
  // Distribution's ":5000" listens on every interface.
  if (/^:\d+$/.test(addr)) addr = `0.0.0.0${addr}`;
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(addr);
  if (!m || !isIP(m[1]) || Number(m[2]) > 65535) throw new UsageError(`--addr must be IP:PORT, got ${addr}`);
  return { host: m[1], port: Number(m[2]) };
}

function isLoopback(host: string): boolean {
  return host.startsWith('127.') || host === '::1';
}

async function serve(flags: Map<string, string | true>): Promise<void> {
  checkFlags(flags, ['data', 'addr', 'config']);
  const config = loadConfig(stringFlag(flags, 'config', false));
  const addr = stringFlag(flags, 'addr', false) ?? config.addr;
  if (!addr) throw new UsageError('--addr is required (or http.addr in the config)');
  const { host, port } = parseAddr(addr);
  if (!config.auth && !isLoopback(host)) {
    throw new Error(`refusing to serve without auth on non-loopback address ${host}; configure auth`);
  }
  const storage = new RegistryStorage(openDriver(config, flags), {
    expireMs: config.uploads.expireSeconds * 1000,
  });
  const warn = (line: string): void => void process.stderr.write(`svc-registry: ${line}\n`);
  const events = new EventSink({ ...config.events, sourceAddr: `${host}:${port}` }, warn);
  const { authorizer, tokens } = authorizerFromConfig(config);
  const server = createRegistryServer({ storage, config, events, authorizer, tokens, log: warn });

  await new Promise<void>((ok, fail) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      fail(
        new Error(
          `cannot listen on ${host}:${port}: ${err.code === 'EADDRINUSE' ? 'address already in use' : err.message}`,
        ),
      ),
    );
    server.listen(port, host, () => ok());
  });
  const bound = server.address();
  const actualPort = typeof bound === 'object' && bound ? bound.port : port;
  const shownHost = host.includes(':') ? `[${host}]` : host;

  const purge = (): void =>
    void storage.purgeExpiredUploads().then(
      (n) => n && warn(`purged ${n} expired uploads`),
      (err: Error) => warn(`upload purge: ${err.message}`),
    );
  if (Number.isFinite(config.uploads.purgeIntervalSeconds)) {
    purge();
    setInterval(purge, config.uploads.purgeIntervalSeconds * 1000).unref();
  }

  const stop = (): void => {
    server.close();
    server.closeAllConnections();
    void events.flush().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdout.write(
    `svc-registry listening on ${config.tls ? 'https' : 'http'}://${shownHost}:${actualPort}\n`,
  );
}

async function gc(flags: Map<string, string | true>): Promise<void> {
  checkFlags(flags, ['data', 'config', 'dry-run', 'grace-period']);
  const config = loadConfig(stringFlag(flags, 'config', false));
  const storage = new RegistryStorage(openDriver(config, flags), { expireMs: Infinity });
  const dryRun = flags.get('dry-run') === true;
  const grace = stringFlag(flags, 'grace-period', false);
  const graceSeconds = grace === undefined ? undefined : parseDuration(grace);
  if (grace !== undefined && graceSeconds === undefined)
    throw new UsageError(`--grace-period must be a duration such as 1h or 30m, got ${grace}`);
  const result = await collectGarbage(storage, {
    dryRun,
    gracePeriodMs: graceSeconds === undefined ? defaultGracePeriodMs : graceSeconds * 1000,
    log: (line) => process.stdout.write(line + '\n'),
  });
  process.stdout.write(
    `${result.marked} blobs referenced, ${result.deleted.length} ${dryRun ? 'would be deleted' : 'deleted'} ` +
      `(${result.freedBytes} bytes)\n`,
  );
}

async function main(): Promise<void> {
  const { command, flags } = parseArgs(process.argv.slice(2));
  if (command === 'serve') return serve(flags);
  if (command === 'gc') return gc(flags);
  throw new UsageError(command ? `unknown command ${command}` : 'no command given');
}

main().catch((err: Error) => {
  process.stderr.write(`svc-registry: ${err.message}\n`);
  if (err instanceof UsageError) process.stderr.write(usage + '\n');
  process.exit(err instanceof UsageError ? 2 : 1);
});

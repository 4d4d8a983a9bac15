// svcd's command line: `svcd --data-root DIR --host unix:///path.sock [--host tcp://…] …`.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isLogLevel, type LogLevel } from '../lib/logger';
import { isStorageDriverName, type StorageDriverName } from '../runtime/containerd/storage-driver';
import { defaultSvcdSocket, isHostRoot } from '../lib/svcd-launch';

export interface SvcdOptions {
  dataRoot: string;
  hosts: string[];
  configFile?: string;
  insecureRegistries: string[];
  /** Absent when not on the command line: the config file's, else info. */
  logLevel?: LogLevel;
  tlsCert?: string;
  tlsKey?: string;
  tlsCaCert?: string;
  /** Clients must present a certificate signed by --tlscacert (dockerd's --tlsverify). */
  tlsVerify: boolean;
  /** The unix sockets' group, by name or gid; absent: `svc` when that group exists. */
  group?: string;
  /** The default bridge's Linux name (dockerd's --bridge names an existing one; svcd makes it). */
  bridge: string;
  /** The default bridge's gateway address and prefix, as dockerd's --bip. */
  bip?: string;
  /** A profile file for containers that set none, or `unconfined`; absent: Docker's default. */
  seccompProfile?: string;
  /** Inside a rootlesskit user namespace: --rootless, and always when not started by root. */
  rootless: boolean;
  /** The containerd snapshotter; absent: overlayfs when a probe mount works, native otherwise. */
  storageDriver?: StorageDriverName;
  /** Where plugins run outside svcd are discovered (.sock, .spec, .json); absent: the defaults. */
  pluginDirs: string[];
  /** Seconds a plugin call may take (--plugin-timeout); absent: 30, as dockerd's client. */
  pluginTimeout?: number;
}

export class UsageError extends Error {}

export const usage = `Usage: svcd --data-root DIR --host unix:///path/svcd.sock [--host tcp://127.0.0.1:PORT]
            [--config FILE] [--insecure-registry HOST:PORT]... [--log-level debug|info|warn|error]
            [--tlscert FILE --tlskey FILE [--tlsverify --tlscacert FILE]] [--group NAME|GID]
            [--bridge NAME] [--bip CIDR]
            [--seccomp-profile FILE|unconfined] [--rootless] [--storage-driver overlayfs|native]
            [--plugins-dir DIR]... [--plugin-timeout SECONDS]`;

export function defaultDataRoot(): string {
  if (isHostRoot()) return '/var/lib/svc';
  return join(process.env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'svc');
}

export function parseSvcdOptions(argv: string[]): SvcdOptions {
  const opts: SvcdOptions = {
    dataRoot: '',
    hosts: [],
    insecureRegistries: [],
    bridge: 'svc0',
    tlsVerify: false,
    rootless: !isHostRoot(),
    pluginDirs: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] =
      argv[i].startsWith('--') && argv[i].includes('=') ? argv[i].split(/=(.*)/s) : [argv[i]];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--data-root':
        opts.dataRoot = value();
        break;
      case '--host':
      case '-H':
        opts.hosts.push(value());
        break;
      case '--config':
        opts.configFile = value();
        break;
      case '--insecure-registry':
        opts.insecureRegistries.push(value());
        break;
      case '--log-level': {
        const level = value();
        if (!isLogLevel(level))
          throw new UsageError(`--log-level must be debug, info, warn or error, not ${level}`);
        opts.logLevel = level;
        break;
      }
      case '--tlscert':
        opts.tlsCert = value();
        break;
      case '--tlskey':
        opts.tlsKey = value();
        break;
      case '--tlscacert':
        opts.tlsCaCert = value();
        break;
      case '--tlsverify':
        opts.tlsVerify = inline === undefined || inline === 'true';
        break;
      case '--group':
      case '-G':
        opts.group = value();
        break;
      case '--bridge':
      case '-b':
        opts.bridge = value();
        if (!/^[a-zA-Z0-9_.-]{1,15}$/.test(opts.bridge))
          throw new UsageError(
            `--bridge takes an interface name of at most 15 characters, not ${opts.bridge}`,
          );
        break;
      case '--bip':
        opts.bip = value();
        break;
      case '--seccomp-profile':
        opts.seccompProfile = value();
        break;
      case '--rootless':
        opts.rootless = true;
        break;
      case '--plugins-dir':
        opts.pluginDirs.push(value());
        break;
      case '--plugin-timeout': {
        const seconds = Number(value());
        if (!Number.isFinite(seconds) || seconds <= 0)
          throw new UsageError(`--plugin-timeout takes a number of seconds above 0`);
        opts.pluginTimeout = seconds;
        break;
      }
      case '--storage-driver':
      case '-s': {
        const driver = value();
        if (!isStorageDriverName(driver))
          throw new UsageError(`--storage-driver must be overlayfs or native, not ${driver}`);
        opts.storageDriver = driver;
        break;
      }
      default:
        throw new UsageError(`unknown option ${argv[i]}`);
    }
  }
  if (!opts.dataRoot) opts.dataRoot = defaultDataRoot();
  if (opts.hosts.length === 0) opts.hosts.push(`unix://${defaultSvcdSocket()}`);
  if (!!opts.tlsCert !== !!opts.tlsKey) throw new UsageError('--tlscert and --tlskey go together');
  if (opts.tlsVerify !== !!opts.tlsCaCert)
    throw new UsageError(
      '--tlsverify checks client certificates against --tlscacert: give both, with --tlscert and --tlskey',
    );
  if (opts.tlsVerify && !opts.tlsCert) throw new UsageError('--tlsverify needs --tlscert and --tlskey');
  return opts;
}

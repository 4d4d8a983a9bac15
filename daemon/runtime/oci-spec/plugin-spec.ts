// The OCI spec a managed plugin runs with, from its config.json and settings, as dockerd builds
// it: the rootfs is a plain directory; the interface socket's directory is bound at
// /run/docker/plugins; a propagated mount is bound rshared (with the rootfs rshared too), so what
// the plugin mounts there is seen by the host and so by the containers it serves.
import { posix } from 'node:path';
import { SystemError } from '../../api/errors';
import type { PluginConfig, PluginSettings } from '../../api/plugin-types';
import {
  ALL_CAPABILITIES,
  DEFAULT_CAPABILITIES,
  normalizeCapabilities,
  ociCapabilities,
} from './capabilities';
import { defaultMounts, DEFAULT_MASKED_PATHS, DEFAULT_READONLY_PATHS } from './default-mounts';
import { DEFAULT_CGROUP_PARENT } from './build-spec';
import { ociDevices } from './devices';
import { DEFAULT_PATH_ENV } from './process-env';
import { OCI_VERSION, type OciMount, type OciNamespace, type OciSpec } from './oci-types';

/** Where a plugin finds its socket's directory, inside. */
export const PLUGIN_SOCKET_DIR = '/run/docker/plugins';

export interface PluginSpecInput {
  id: string;
  config: PluginConfig;
  settings: PluginSettings;
  rootfs: string;
  /** Host directory bound at /run/docker/plugins (the socket appears there). */
  socketDir: string;
  /** Host directory bound at config.PropagatedMount, when it has one. */
  propagatedMount?: string;
  cgroupsUnavailable: boolean;
}

function namespaces(config: PluginConfig): OciNamespace[] {
  const out: OciNamespace[] = [{ type: 'mount' }, { type: 'uts' }];
  if (!config.PidHost) out.push({ type: 'pid' });
  if (!config.IpcHost) out.push({ type: 'ipc' });
  if (config.Network.Type !== 'host') out.push({ type: 'network' });
  return out;
}

function settingMounts(settings: PluginSettings): OciMount[] {
  return settings.Mounts.map((m) => {
    // dockerd's words; a settable source is set with `docker plugin set NAME MOUNT.source=PATH`.
    if (!m.Source) throw new SystemError(`mount source is not specified (${m.Name || m.Destination})`);
    const options = m.Options ?? [];
    return {
      destination: m.Destination,
      type: m.Type || 'bind',
      source: m.Source,
      options:
        m.Type === 'bind' && !options.some((o) => o === 'bind' || o === 'rbind')
          ? ['rbind', ...options]
          : options,
    };
  });
}

export function buildPluginSpec(input: PluginSpecInput): OciSpec {
  const { config, settings } = input;
  const mounts: OciMount[] = [
    ...defaultMounts(false),
    {
      destination: '/dev/shm',
      type: 'tmpfs',
      source: 'shm',
      options: ['nosuid', 'noexec', 'nodev', 'mode=1777'],
    },
    { destination: PLUGIN_SOCKET_DIR, type: 'bind', source: input.socketDir, options: ['rbind', 'rshared'] },
  ];
  if (config.Network.Type === 'host') {
    for (const file of ['/etc/hosts', '/etc/resolv.conf'])
      mounts.push({ destination: file, type: 'bind', source: file, options: ['rbind', 'ro'] });
  }
  if (config.PropagatedMount && input.propagatedMount) {
    mounts.push({
      destination: config.PropagatedMount,
      type: 'bind',
      source: input.propagatedMount,
      options: ['rbind', 'rw', 'rshared'],
    });
  }
  mounts.push(...settingMounts(settings));
  const devices = ociDevices(
    settings.Devices.filter((d) => d.Path).map((d) => ({
      PathOnHost: d.Path!,
      PathInContainer: d.Path!,
      CgroupPermissions: 'rwm',
    })),
    [],
    false,
  );
  if (config.Linux.AllowAllDevices) devices.rules.push({ allow: true, access: 'rwm' });
  const asked = normalizeCapabilities(config.Linux.Capabilities);
  const caps = asked.includes('ALL') ? ALL_CAPABILITIES : [...new Set([...DEFAULT_CAPABILITIES, ...asked])];
  const env = settings.Env.some((e) => e.startsWith('PATH='))
    ? settings.Env
    : [`PATH=${DEFAULT_PATH_ENV}`, ...settings.Env];
  return {
    ociVersion: OCI_VERSION,
    process: {
      terminal: false,
      user: { uid: config.User.UID ?? 0, gid: config.User.GID ?? 0 },
      args: [...(config.Entrypoint ?? []), ...settings.Args],
      env,
      cwd: posix.resolve('/', config.WorkDir || '/'),
      capabilities: ociCapabilities(caps),
      noNewPrivileges: false,
    },
    root: { path: input.rootfs, readonly: false },
    hostname: input.id.slice(0, 12),
    mounts,
    linux: {
      namespaces: namespaces(config),
      devices: devices.devices,
      ...(input.cgroupsUnavailable
        ? { resources: { devices: [] } }
        : {
            resources: { devices: devices.rules },
            cgroupsPath: posix.join(DEFAULT_CGROUP_PARENT, input.id),
          }),
      maskedPaths: DEFAULT_MASKED_PATHS,
      readonlyPaths: DEFAULT_READONLY_PATHS,
      ...(config.PropagatedMount ? { rootfsPropagation: 'rshared' } : {}),
    },
  };
}

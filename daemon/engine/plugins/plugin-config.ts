// A plugin's config.json read as dockerd reads it (field names in any case), the privileges it
// asks for, and the settings a user may change (`docker plugin set`) where its `Settable` lists allow.
import { ConflictError, InvalidParameterError } from '../../api/errors';
import type {
  PluginArgs,
  PluginConfig,
  PluginDevice,
  PluginEnv,
  PluginMount,
  PluginPrivilege,
  PluginSettings,
} from '../../api/plugin-types';

type Json = Record<string, unknown>;

function invalid(message: string): InvalidParameterError {
  return new InvalidParameterError(`invalid plugin config: ${message}`);
}

/** The value of `key` in `obj`, matched without regard to case (Go's encoding/json does so). */
function field(obj: Json, key: string): unknown {
  const lower = key.toLowerCase();
  const found = Object.keys(obj).find((k) => k.toLowerCase() === lower);
  return found === undefined ? undefined : obj[found];
}

function object(value: unknown, what: string): Json {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(`${what} must be an object`);
  return value as Json;
}

function str(obj: Json, key: string, what: string): string {
  const value = field(obj, key);
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw invalid(`${what}.${key} must be a string`);
  return value;
}

function nullableStr(obj: Json, key: string, what: string): string | null {
  const value = field(obj, key);
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid(`${what}.${key} must be a string`);
  return value;
}

function strings(obj: Json, key: string, what: string): string[] | null {
  const value = field(obj, key);
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    throw invalid(`${what}.${key} must be a list of strings`);
  return value as string[];
}

function bool(obj: Json, key: string): boolean {
  return field(obj, key) === true;
}

function list(obj: Json, key: string, what: string): Json[] {
  const value = field(obj, key);
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid(`${what}.${key} must be a list`);
  return value.map((v, i) => object(v, `${what}.${key}[${i}]`));
}

const described = (o: Json, what: string) => ({
  Name: str(o, 'name', what),
  Description: str(o, 'description', what),
  Settable: strings(o, 'settable', what),
});

function mount(o: Json, what: string): PluginMount {
  return {
    ...described(o, what),
    Source: nullableStr(o, 'source', what),
    Destination: str(o, 'destination', what),
    Type: str(o, 'type', what),
    Options: strings(o, 'options', what),
  };
}

function device(o: Json, what: string): PluginDevice {
  return { ...described(o, what), Path: nullableStr(o, 'path', what) };
}

function env(o: Json, what: string): PluginEnv {
  return { ...described(o, what), Value: nullableStr(o, 'value', what) };
}

function args(o: Json, what: string): PluginArgs {
  return { ...described(o, what), Value: strings(o, 'value', what) };
}

/** Parses config.json (from a create's tar or a registry's config blob). */
export function parsePluginConfig(bytes: Buffer): PluginConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw invalid((err as Error).message);
  }
  const c = object(raw, 'config');
  const iface = object(field(c, 'interface'), 'interface');
  const linux = object(field(c, 'linux'), 'linux');
  const user = object(field(c, 'user'), 'user');
  const rootfs = field(c, 'rootfs') === undefined ? undefined : object(field(c, 'rootfs'), 'rootfs');
  const config: PluginConfig = {
    Description: str(c, 'description', 'config'),
    Documentation: str(c, 'documentation', 'config'),
    Interface: {
      Types: strings(iface, 'types', 'interface') ?? [],
      Socket: str(iface, 'socket', 'interface'),
      ...(str(iface, 'protocolscheme', 'interface')
        ? { ProtocolScheme: str(iface, 'protocolscheme', 'interface') }
        : {}),
    },
    Entrypoint: strings(c, 'entrypoint', 'config'),
    WorkDir: str(c, 'workdir', 'config'),
    User: {
      ...(typeof field(user, 'uid') === 'number' ? { UID: field(user, 'uid') as number } : {}),
      ...(typeof field(user, 'gid') === 'number' ? { GID: field(user, 'gid') as number } : {}),
    },
    Network: { Type: str(object(field(c, 'network'), 'network'), 'type', 'network') },
    Linux: {
      Capabilities: strings(linux, 'capabilities', 'linux'),
      AllowAllDevices: bool(linux, 'allowalldevices'),
      Devices: list(linux, 'devices', 'linux').map((d, i) => device(d, `linux.devices[${i}]`)),
    },
    PropagatedMount: str(c, 'propagatedmount', 'config'),
    IpcHost: bool(c, 'ipchost'),
    PidHost: bool(c, 'pidhost'),
    Mounts: list(c, 'mounts', 'config').map((m, i) => mount(m, `mounts[${i}]`)),
    Env: list(c, 'env', 'config').map((e, i) => env(e, `env[${i}]`)),
    Args: args(object(field(c, 'args'), 'args'), 'args'),
    ...(rootfs
      ? {
          rootfs: {
            type: str(rootfs, 'type', 'rootfs'),
            diff_ids: strings(rootfs, 'diff_ids', 'rootfs') ?? [],
          },
        }
      : {}),
  };
  const dockerVersion = str(c, 'dockerversion', 'config');
  if (dockerVersion) config.DockerVersion = dockerVersion;
  if (config.Interface.Types.length === 0)
    throw invalid('interface.types is empty: the plugin implements nothing');
  if (!config.Interface.Socket) throw invalid('interface.socket is empty');
  if (config.Interface.Socket.includes('/')) throw invalid('interface.socket must be a file name');
  if (!config.Entrypoint?.length) throw invalid('entrypoint is empty');
  if (config.PropagatedMount && !config.PropagatedMount.startsWith('/'))
    throw invalid('propagatedMount must be an absolute path');
  for (const m of config.Mounts) {
    if (!m.Destination.startsWith('/'))
      throw invalid(`mount ${m.Name || m.Destination} needs an absolute destination`);
  }
  return config;
}

/** The settings a new plugin starts with: its config's values. */
export function initialSettings(config: PluginConfig): PluginSettings {
  return {
    Mounts: config.Mounts.map((m) => ({ ...m })),
    Env: config.Env.filter((e) => e.Value !== null).map((e) => `${e.Name}=${e.Value}`),
    Args: [...(config.Args.Value ?? [])],
    Devices: (config.Linux.Devices ?? []).map((d) => ({ ...d })),
  };
}

/** What the plugin asks to be allowed, in dockerd's order and words. */
export function pluginPrivileges(config: PluginConfig): PluginPrivilege[] {
  const out: PluginPrivilege[] = [];
  if (config.Network.Type)
    out.push({
      Name: 'network',
      Description: 'permissions to access a network',
      Value: [config.Network.Type],
    });
  if (config.IpcHost)
    out.push({
      Name: 'host ipc namespace',
      Description: 'allow access to host ipc namespace',
      Value: ['true'],
    });
  if (config.PidHost)
    out.push({
      Name: 'host pid namespace',
      Description: 'allow access to host pid namespace',
      Value: ['true'],
    });
  for (const m of config.Mounts) {
    if (m.Source !== null) out.push({ Name: 'mount', Description: 'host path to mount', Value: [m.Source] });
  }
  for (const d of config.Linux.Devices ?? []) {
    if (d.Path !== null) out.push({ Name: 'device', Description: 'host device to access', Value: [d.Path] });
  }
  if (config.Linux.AllowAllDevices)
    out.push({
      Name: 'allow-all-devices',
      Description: "allow 'rwm' access to all devices",
      Value: ['true'],
    });
  if (config.Linux.Capabilities?.length)
    out.push({
      Name: 'capabilities',
      Description: 'list of additional capabilities required',
      Value: config.Linux.Capabilities,
    });
  return out;
}

/** Refuses a pull or upgrade whose granted privileges are not exactly those the plugin needs. */
export function checkGranted(config: PluginConfig, granted: PluginPrivilege[]): void {
  const key = (p: PluginPrivilege) => `${p.Name}\0${[...p.Value].join('\0')}`;
  const needed = pluginPrivileges(config).map(key).sort();
  const given = granted.map(key).sort();
  if (needed.length !== given.length || needed.some((k, i) => k !== given[i]))
    throw new InvalidParameterError(
      'incorrect privileges: the body must grant exactly what GET /plugins/privileges lists',
    );
}

interface Setting {
  name: string;
  field: string;
  value: string;
}

function parseSetting(text: string): Setting {
  const eq = text.indexOf('=');
  if (eq <= 0)
    throw new InvalidParameterError(`invalid setting ${JSON.stringify(text)}: expected NAME=VALUE`);
  const key = text.slice(0, eq);
  const dot = key.indexOf('.');
  return dot < 0
    ? { name: key, field: '', value: text.slice(eq + 1) }
    : { name: key.slice(0, dot), field: key.slice(dot + 1), value: text.slice(eq + 1) };
}

/** Checks the setting's field may be changed: it names the only field of its kind, listed in Settable. */
function checkSettable(s: Setting, allowed: string, settable: string[] | null): void {
  const wanted = s.field || allowed;
  if (wanted !== allowed)
    throw new InvalidParameterError(
      `invalid field ${JSON.stringify(s.field)} for ${s.name}: only ${allowed} may be set`,
    );
  if (!(settable ?? []).includes(allowed))
    throw new InvalidParameterError(
      `${JSON.stringify(s.field ? `${s.name}.${s.field}` : s.name)} is not settable`,
    );
}

/** The settings after `docker plugin set NAME=VALUE ...`; refused while the plugin is enabled. */
export function applySettings(
  config: PluginConfig,
  current: PluginSettings,
  texts: string[],
  enabled: boolean,
): PluginSettings {
  if (enabled) throw new ConflictError('cannot set on an active plugin, disable plugin before setting');
  const next: PluginSettings = {
    Mounts: current.Mounts.map((m) => ({ ...m })),
    Env: [...current.Env],
    Args: [...current.Args],
    Devices: current.Devices.map((d) => ({ ...d })),
  };
  for (const s of texts.map(parseSetting)) {
    const envEntry = config.Env.find((e) => e.Name === s.name);
    const mountEntry = config.Mounts.find((m) => m.Name === s.name);
    const deviceEntry = (config.Linux.Devices ?? []).find((d) => d.Name === s.name);
    if (envEntry) {
      checkSettable(s, 'value', envEntry.Settable);
      next.Env = [...next.Env.filter((e) => !e.startsWith(`${s.name}=`)), `${s.name}=${s.value}`];
    } else if (mountEntry) {
      checkSettable(s, 'source', mountEntry.Settable);
      // dockerd's rule and words: only a mount with a source in the config may have it changed.
      if (mountEntry.Source === null) throw new InvalidParameterError('Plugin config has no mount source');
      next.Mounts = next.Mounts.map((m) => (m.Name === s.name ? { ...m, Source: s.value } : m));
    } else if (deviceEntry) {
      checkSettable(s, 'path', deviceEntry.Settable);
      next.Devices = next.Devices.map((d) => (d.Name === s.name ? { ...d, Path: s.value } : d));
    } else if (config.Args.Name && config.Args.Name === s.name) {
      checkSettable(s, 'value', config.Args.Settable);
      next.Args = s.value.split(/\s+/).filter(Boolean);
    } else {
      throw new InvalidParameterError(
        `setting ${JSON.stringify(s.name)} not found in the plugin configuration`,
      );
    }
  }
  return next;
}

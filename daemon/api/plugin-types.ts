// A managed plugin as the Engine API describes it (GET /plugins, /plugins/{name}/json), its
// config.json (the registry's `application/vnd.docker.plugin.v1+json` blob), and the requests the
// plugins router hands its backend. Field names are dockerd's, which the docker CLI reads.
import type { Readable } from 'node:stream';
import type { Filters } from './filters';
import type { Emit } from './image-types';

export interface PluginMount {
  Name: string;
  Description: string;
  Settable: string[] | null;
  Source: string | null;
  Destination: string;
  Type: string;
  Options: string[] | null;
}

export interface PluginDevice {
  Name: string;
  Description: string;
  Settable: string[] | null;
  Path: string | null;
}

export interface PluginEnv {
  Name: string;
  Description: string;
  Settable: string[] | null;
  Value: string | null;
}

export interface PluginArgs {
  Name: string;
  Description: string;
  Settable: string[] | null;
  Value: string[] | null;
}

export interface PluginConfig {
  DockerVersion?: string;
  Description: string;
  Documentation: string;
  /** Types are `prefix.capability/version` strings, e.g. `docker.volumedriver/1.0`. */
  Interface: { Types: string[]; Socket: string; ProtocolScheme?: string };
  Entrypoint: string[] | null;
  WorkDir: string;
  User: { UID?: number; GID?: number };
  Network: { Type: string };
  Linux: { Capabilities: string[] | null; AllowAllDevices: boolean; Devices: PluginDevice[] | null };
  PropagatedMount: string;
  IpcHost: boolean;
  PidHost: boolean;
  Mounts: PluginMount[];
  Env: PluginEnv[];
  Args: PluginArgs;
  rootfs?: { type: string; diff_ids: string[] };
}

export interface PluginSettings {
  Mounts: PluginMount[];
  Env: string[];
  Args: string[];
  Devices: PluginDevice[];
}

export interface Plugin {
  Id: string;
  Name: string;
  Enabled: boolean;
  Settings: PluginSettings;
  /** The remote reference it was pulled from; absent for a plugin made by POST /plugins/create. */
  PluginReference?: string;
  Config: PluginConfig;
}

/** One permission a plugin's config asks for, as pull, upgrade and /plugins/privileges list them. */
export interface PluginPrivilege {
  Name: string;
  Description: string;
  Value: string[];
}

export interface PluginPullRequest {
  remote: string;
  /** The local name (an alias); the remote reference when empty. */
  name: string;
  privileges: PluginPrivilege[];
  auth?: string;
  /** Told the local name before the first progress message (the Docker-Plugin-Name header). */
  named?: (name: string) => void;
  /** Progress messages, as `docker plugin install` prints them. */
  emit: Emit;
  signal?: AbortSignal;
}

export interface PluginUpgradeRequest extends Omit<PluginPullRequest, 'name'> {
  /** The installed plugin being upgraded. */
  plugin: string;
}

export interface PluginPushRequest {
  name: string;
  auth?: string;
  emit: Emit;
  signal?: AbortSignal;
}

export interface PluginCreateRequest {
  name: string;
  /** A tar of config.json and rootfs/, as `docker plugin create` sends it. */
  context: Readable;
}

export type PluginFilters = Filters;

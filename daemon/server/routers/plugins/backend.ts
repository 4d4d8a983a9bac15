// What the plugins router needs from the engine.
import type {
  Plugin,
  PluginCreateRequest,
  PluginFilters,
  PluginPrivilege,
  PluginPullRequest,
  PluginPushRequest,
  PluginUpgradeRequest,
} from '../../../api/plugin-types';

export interface PluginsBackend {
  list(filters: PluginFilters): Promise<Plugin[]>;
  privileges(remote: string, auth: string | undefined, signal?: AbortSignal): Promise<PluginPrivilege[]>;
  pull(req: PluginPullRequest): Promise<void>;
  upgrade(req: PluginUpgradeRequest): Promise<void>;
  create(req: PluginCreateRequest): Promise<void>;
  push(req: PluginPushRequest): Promise<void>;
  inspect(name: string): Promise<Plugin>;
  remove(name: string, force: boolean): Promise<void>;
  /** `timeout` seconds for the plugin's socket to answer activation (0: the default). */
  enable(name: string, timeout: number): Promise<void>;
  disable(name: string, force: boolean): Promise<void>;
  set(name: string, settings: string[]): Promise<void>;
}

// Installed plugins on disk: <root>/<id>/plugin.json (written atomically) beside the plugin's
// rootfs/, its propagated-mount/ and its log. A plugin being installed is assembled in a
// dot-directory and renamed into place, so a crash leaves it whole or absent.
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { InvalidParameterError, NotFoundError } from '../../api/errors';
import type { Plugin } from '../../api/plugin-types';
import { writeFileAtomic } from '../../lib/atomic-file';
import { familiarString, parseReference, withDefaultTag } from '../shared/reference';
import type { PluginPaths } from './plugin-process';

/** `name` as dockerd stores it: familiar, with `latest` when it has no tag or digest. */
export function normalPluginName(name: string): string {
  return familiarString(withDefaultTag(parseReference(name)));
}

export class PluginStore {
  private readonly plugins = new Map<string, Plugin>();

  constructor(private readonly root: string) {}

  paths(id: string): PluginPaths {
    return {
      rootfs: join(this.root, id, 'rootfs'),
      propagatedMount: join(this.root, id, 'propagated-mount'),
      log: join(this.root, id, 'plugin.log'),
      socketDir: join(this.root, 'run', id.slice(0, 12)),
    };
  }

  async load(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    for (const entry of await readdir(this.root)) {
      if (entry.startsWith('.new-')) {
        await rm(join(this.root, entry), { recursive: true, force: true });
        continue;
      }
      if (!/^[0-9a-f]{64}$/.test(entry)) continue;
      const text = await readFile(join(this.root, entry, 'plugin.json'), 'utf8').catch(() => undefined);
      if (text) this.plugins.set(entry, JSON.parse(text) as Plugin);
    }
  }

  all(): Plugin[] {
    return [...this.plugins.values()].sort((a, b) => a.Name.localeCompare(b.Name));
  }

  /** By full ID, by name (tag `latest` when none), or by a unique ID prefix, as dockerd finds one. */
  find(nameOrId: string): Plugin | undefined {
    const byId = this.plugins.get(nameOrId);
    if (byId) return byId;
    let name: string | undefined;
    try {
      name = normalPluginName(nameOrId);
    } catch {
      name = undefined;
    }
    const byName = this.all().find((p) => p.Name === name);
    if (byName) return byName;
    if (!/^[0-9a-f]+$/.test(nameOrId)) return undefined;
    const matches = this.all().filter((p) => p.Id.startsWith(nameOrId));
    if (matches.length > 1) throw new InvalidParameterError(`multiple plugins found for "${nameOrId}"`);
    return matches[0];
  }

  get(nameOrId: string): Plugin {
    const plugin = this.find(nameOrId);
    if (!plugin) throw new NotFoundError(`plugin "${nameOrId}" not found`);
    return plugin;
  }

  async save(plugin: Plugin): Promise<void> {
    await writeFileAtomic(join(this.root, plugin.Id, 'plugin.json'), JSON.stringify(plugin));
    this.plugins.set(plugin.Id, plugin);
  }

  /** A fresh, empty directory to assemble a plugin in, and how to put it in place as its ID. */
  async staging(): Promise<{
    dir: string;
    commit: (plugin: Plugin) => Promise<void>;
    discard: () => Promise<void>;
  }> {
    const dir = join(this.root, `.new-${randomBytes(8).toString('hex')}`);
    await mkdir(dir, { mode: 0o700 });
    return {
      dir,
      commit: async (plugin) => {
        await writeFileAtomic(join(dir, 'plugin.json'), JSON.stringify(plugin));
        await rename(dir, join(this.root, plugin.Id));
        this.plugins.set(plugin.Id, plugin);
      },
      discard: () => rm(dir, { recursive: true, force: true }),
    };
  }

  /** Swaps the rootfs of an installed plugin for one assembled by `staging` (an upgrade). */
  async replaceRootfs(id: string, stagedDir: string): Promise<void> {
    const old = join(this.root, id, `.old-rootfs-${randomBytes(4).toString('hex')}`);
    await rename(this.paths(id).rootfs, old);
    await rename(join(stagedDir, 'rootfs'), this.paths(id).rootfs);
    await rm(old, { recursive: true, force: true });
    await rm(stagedDir, { recursive: true, force: true });
  }

  async remove(id: string): Promise<void> {
    this.plugins.delete(id);
    await rm(join(this.root, id), { recursive: true, force: true });
  }
}

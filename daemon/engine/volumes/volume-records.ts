// The volumes on disk: each one a directory <volumes>/<name> holding `_data` (what containers
// see) and `opts.json` (driver, labels, options, creation time), made whole or not at all (it is
// assembled in a temp directory and renamed into place), and the lock each name's changes run under.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Volume } from '../../api/volume-types';
import { writeFileAtomic } from '../../lib/atomic-file';
import { KeyedLock } from '../../lib/keyed-lock';
import type { EventsService } from '../events/events-service';

export const localDriver = 'local';

export /** What opts.json holds. */
interface VolumeMeta {
  Driver: string;
  Labels: Record<string, string> | null;
  Options: Record<string, string> | null;
  CreatedAt: string;
}

export function rfc3339Seconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

export /** Bytes of the files under `dir`, symbolic links not followed (as `du` counts apparent sizes). */
async function directorySize(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await directorySize(path);
    else total += (await lstat(path).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

export class VolumeRecords {
  private readonly lock = new KeyedLock();

  constructor(
    /** <data root>/volumes */
    private readonly root: string,
    private readonly events: EventsService,
  ) {}

  dir(name: string): string {
    return join(this.root, name);
  }

  data(name: string): string {
    return join(this.dir(name), '_data');
  }

  locked<T>(name: string, work: () => Promise<T>): Promise<T> {
    return this.lock.run(name, work);
  }

  async meta(name: string): Promise<VolumeMeta | undefined> {
    const data = await stat(this.data(name)).catch(() => undefined);
    if (!data?.isDirectory()) return undefined;
    const text = await readFile(join(this.dir(name), 'opts.json'), 'utf8').catch(() => undefined);
    // Volumes from before opts.json existed: plain local directories.
    if (text === undefined)
      return { Driver: localDriver, Labels: null, Options: null, CreatedAt: rfc3339Seconds(data.mtimeMs) };
    return JSON.parse(text) as VolumeMeta;
  }

  view(name: string, meta: VolumeMeta): Volume {
    return {
      CreatedAt: meta.CreatedAt,
      Driver: meta.Driver,
      Labels: meta.Labels,
      // A plugin's volume is where its driver says (inspect asks it); svcd binds that on _data for containers.
      Mountpoint: meta.Driver === localDriver ? this.data(name) : '',
      Name: name,
      Options: meta.Options,
      Scope: 'local',
    };
  }

  async names(): Promise<string[]> {
    const entries = await readdir(this.root).catch(() => [] as string[]);
    // Temp directories of creates in progress start with a dot, which no volume name may.
    return entries.filter((n) => !n.startsWith('.')).sort();
  }

  /** Makes the volume whole: opts.json and _data assembled aside, then renamed into place. */
  async make(name: string, meta: VolumeMeta): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o701 });
    const tmp = join(this.root, `.new-${randomBytes(8).toString('hex')}`);
    try {
      await mkdir(join(tmp, '_data'), { recursive: true, mode: 0o755 });
      await writeFileAtomic(join(tmp, 'opts.json'), JSON.stringify(meta));
      await rename(tmp, this.dir(name));
    } catch (err) {
      await rm(tmp, { recursive: true, force: true });
      throw err;
    }
    this.events.publish('volume', 'create', { id: name, attributes: { driver: meta.Driver } });
  }

  /** How many volumes `driver` (a plugin's name) serves: a plugin is not disabled while some are. */
  async countByDriver(driver: string): Promise<number> {
    let count = 0;
    for (const name of await this.names()) if ((await this.meta(name))?.Driver === driver) count++;
    return count;
  }
}

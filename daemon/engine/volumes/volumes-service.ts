// Volumes on the local driver: each one a directory <volumes>/<name> holding `_data` (what
// containers see) and `opts.json` (driver, labels, options, creation time). A volume made with
// `type`/`device`/`o` options is mounted on `_data` when the first container using it starts and
// unmounted when the last one stops; as in dockerd, an archive operation on a container that does
// not run mounts it too, for as long as the operation lasts.
//
// Safety: a volume appears whole or not at all (it is assembled in a temp directory and renamed
// into place); every change to one name runs under that name's lock, and a container being
// created holds a reservation on its volumes until its record is registered, so a removal
// racing a create either wins before the create sees the volume or is refused as in use.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ConflictError, InvalidParameterError, NotFoundError, SystemError } from '../../api/errors';
import type {
  Volume,
  VolumeCreateBody,
  VolumeFilters,
  VolumeListResponse,
  VolumePruneResponse,
  VolumeRemoveOptions,
} from '../../api/volume-types';
import { writeFileAtomic } from '../../lib/atomic-file';
import { KeyedLock } from '../../lib/keyed-lock';
import { checkFilterKeys, labelMatches } from '../../lib/filters';
import { validateVolumeName } from '../../runtime/oci-spec/mount-paths';
import type { VolumeRequest } from '../../runtime/oci-spec/mount-types';
import { resolveInRootfs } from '../../runtime/oci-spec/rootfs-path';
import { isMounted, unmount } from '../shared/mounts';
import type { ContainerUsage, VolumeUser } from '../shared/container-usage';
import type { EventsService } from '../events/events-service';
import type { VolumeDriverClient } from '../plugins/plugin-protocol';
import { isMountVolume, mountArgs, validateLocalOptions } from './local-driver-options';

const run = promisify(execFile);
const localDriver = 'local';

/** A container that uses a volume, as the containers engine reports it. */
export interface VolumesServiceDeps {
  /** <data root>/volumes */
  root: string;
  events: EventsService;
  /** The containers whose mounts name the volume. */
  /** Which containers use a volume (none may be removed while one does). */
  containers: Pick<ContainerUsage, 'volumeUsers'>;
  /** A volume plugin by name (managed or discovered), or the NotFoundError dockerd answers. */
  driver?: (name: string) => Promise<VolumeDriverClient>;
  /** The enabled plugin volume drivers: a list shows the volumes they list too. */
  pluginDrivers?: () => VolumeDriverClient[];
}

export interface VolumeResolution {
  Name: string;
  Source: string;
  Driver: string;
  created: boolean;
}

/** What opts.json holds. */
interface VolumeMeta {
  Driver: string;
  Labels: Record<string, string> | null;
  Options: Record<string, string> | null;
  CreatedAt: string;
}

function rfc3339Seconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

/** Bytes of the files under `dir`, symbolic links not followed (as `du` counts apparent sizes). */
async function directorySize(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await directorySize(path);
    else total += (await lstat(path).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

function parseBoolFilter(key: string, value: string): boolean {
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new InvalidParameterError(`invalid filter '${key}=${value}'`);
}

export class VolumesService {
  private readonly lock = new KeyedLock();
  /** Volumes promised to containers still being created. */
  private readonly reserved = new Map<string, number>();
  /** Mount-type volumes mounted for archive operations still under way, and how many. */
  private readonly lent = new Map<string, number>();

  constructor(private readonly deps: VolumesServiceDeps) {}

  /** The plugin serving `driver`, undefined for the local driver. */
  private async driverFor(driver: string): Promise<VolumeDriverClient | undefined> {
    if (driver === localDriver) return undefined;
    if (!this.deps.driver)
      throw new NotFoundError(`error looking up volume plugin ${driver}: plugin "${driver}" not found`);
    return this.deps.driver(driver);
  }

  /** How many volumes `driver` (a plugin's name) serves: a plugin is not disabled while some are. */
  async countByDriver(driver: string): Promise<number> {
    let count = 0;
    for (const name of await this.names()) if ((await this.meta(name))?.Driver === driver) count++;
    return count;
  }

  /** The volume as its plugin sees it: Mountpoint and Status answered by VolumeDriver.Get. */
  private async withDriverView(volume: Volume): Promise<Volume> {
    const driver = await this.driverFor(volume.Driver);
    if (!driver) return volume;
    const found = await driver.get(volume.Name);
    return {
      ...volume,
      Mountpoint: found.Mountpoint ? driver.hostPath(found.Mountpoint) : '',
      ...(found.Status ? { Status: found.Status } : {}),
      Scope: await driver.scope(),
    };
  }

  private dir(name: string): string {
    return join(this.deps.root, name);
  }

  private data(name: string): string {
    return join(this.dir(name), '_data');
  }

  private locked<T>(name: string, work: () => Promise<T>): Promise<T> {
    return this.lock.run(name, work);
  }

  private async meta(name: string): Promise<VolumeMeta | undefined> {
    const data = await stat(this.data(name)).catch(() => undefined);
    if (!data?.isDirectory()) return undefined;
    const text = await readFile(join(this.dir(name), 'opts.json'), 'utf8').catch(() => undefined);
    // Volumes from before opts.json existed: plain local directories.
    if (text === undefined)
      return { Driver: localDriver, Labels: null, Options: null, CreatedAt: rfc3339Seconds(data.mtimeMs) };
    return JSON.parse(text) as VolumeMeta;
  }

  private view(name: string, meta: VolumeMeta): Volume {
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

  private async names(): Promise<string[]> {
    const entries = await readdir(this.deps.root).catch(() => [] as string[]);
    // Temp directories of creates in progress start with a dot, which no volume name may.
    return entries.filter((n) => !n.startsWith('.')).sort();
  }

  /** Makes the volume whole: opts.json and _data assembled aside, then renamed into place. */
  private async make(name: string, meta: VolumeMeta): Promise<void> {
    await mkdir(this.deps.root, { recursive: true, mode: 0o701 });
    const tmp = join(this.deps.root, `.new-${randomBytes(8).toString('hex')}`);
    try {
      await mkdir(join(tmp, '_data'), { recursive: true, mode: 0o755 });
      await writeFileAtomic(join(tmp, 'opts.json'), JSON.stringify(meta));
      await rename(tmp, this.dir(name));
    } catch (err) {
      await rm(tmp, { recursive: true, force: true });
      throw err;
    }
    this.deps.events.publish('volume', 'create', { id: name, attributes: { driver: meta.Driver } });
  }

  private async findOrMake(
    name: string,
    wanted: Omit<VolumeMeta, 'CreatedAt'>,
    driver?: VolumeDriverClient,
  ): Promise<{ meta: VolumeMeta; created: boolean }> {
    const existing = await this.meta(name);
    if (existing) {
      if (existing.Driver !== wanted.Driver) {
        throw new ConflictError(`a volume with name ${name} already exists with driver "${existing.Driver}"`);
      }
      return { meta: existing, created: false };
    }
    const meta = { ...wanted, CreatedAt: rfc3339Seconds(Date.now()) };
    await driver?.create(name, wanted.Options ?? {});
    await this.make(name, meta);
    return { meta, created: true };
  }

  /** POST /volumes/create: a new volume, or the existing one of that name and driver. */
  async create(body: VolumeCreateBody): Promise<Volume> {
    const name = body.Name || randomBytes(32).toString('hex');
    validateVolumeName(name);
    const driver = await this.driverFor(body.Driver || localDriver);
    const options = body.DriverOpts ?? {};
    if (!driver) validateLocalOptions(options);
    return this.locked(name, async () => {
      const { meta } = await this.findOrMake(
        name,
        { Driver: driver?.name ?? localDriver, Labels: body.Labels ?? {}, Options: options },
        driver,
      );
      return this.withDriverView(this.view(name, meta));
    });
  }

  async inspect(name: string): Promise<Volume> {
    const meta = await this.meta(name);
    if (!meta) throw new NotFoundError(`get ${name}: no such volume`);
    return this.withDriverView(this.view(name, meta));
  }

  private async all(): Promise<Array<{ volume: Volume; users: VolumeUser[] }>> {
    const out: Array<{ volume: Volume; users: VolumeUser[] }> = [];
    for (const name of await this.names()) {
      const meta = await this.meta(name);
      if (meta) out.push({ volume: this.view(name, meta), users: this.deps.containers.volumeUsers(name) });
    }
    return out;
  }

  /**
   * What the plugins list (VolumeDriver.List): the Mountpoint of svcd's volumes of theirs, and
   * the volumes svcd has no record of, shown as dockerd shows them. A driver that fails to answer
   * is left out with a warning rather than failing the list.
   */
  private async withDriverListed(
    recorded: Array<{ volume: Volume; users: VolumeUser[] }>,
    warnings: string[],
  ): Promise<Array<{ volume: Volume; users: VolumeUser[] }>> {
    const byName = new Map(recorded.map((r) => [r.volume.Name, r]));
    const out = [...recorded];
    for (const driver of this.deps.pluginDrivers?.() ?? []) {
      const listed = await driver.list().catch((err: Error) => {
        warnings.push(err.message);
        return [];
      });
      for (const v of listed) {
        const Mountpoint = v.Mountpoint ? driver.hostPath(v.Mountpoint) : '';
        const known = byName.get(v.Name);
        if (known) {
          if (known.volume.Driver === driver.name) known.volume.Mountpoint = Mountpoint;
          continue;
        }
        const volume: Volume = {
          CreatedAt: v.CreatedAt ?? '',
          Driver: driver.name,
          Labels: null,
          Mountpoint,
          Name: v.Name,
          Options: null,
          Scope: 'local',
        };
        byName.set(v.Name, { volume, users: [] });
        out.push({ volume, users: this.deps.containers.volumeUsers(v.Name) });
      }
    }
    return out;
  }

  async list(filters: VolumeFilters): Promise<VolumeListResponse> {
    checkFilterKeys(filters, ['name', 'driver', 'label', 'dangling']);
    const dangling = filters.get('dangling')?.map((v) => parseBoolFilter('dangling', v));
    const warnings: string[] = [];
    const Volumes = (await this.withDriverListed(await this.all(), warnings))
      .filter(({ volume, users }) => {
        const names = filters.get('name');
        if (names && !names.some((n) => volume.Name.includes(n))) return false;
        const drivers = filters.get('driver');
        if (drivers && !drivers.includes(volume.Driver)) return false;
        const labels = filters.get('label');
        if (labels && !labels.every((l) => labelMatches(volume.Labels ?? {}, l))) return false;
        if (dangling && !dangling.some((d) => d === (users.length === 0))) return false;
        return true;
      })
      .map(({ volume }) => volume);
    return { Volumes, Warnings: warnings.length ? warnings : null };
  }

  /** Removes the volume; a plugin's is removed by its driver first, whose refusal stands. */
  private async destroy(name: string): Promise<void> {
    const driverName = (await this.meta(name))?.Driver ?? localDriver;
    const driver = await this.driverFor(driverName);
    await driver?.remove(name);
    const data = this.data(name);
    if (await isMounted(data)) await unmount(data, true);
    await rm(this.dir(name), { recursive: true, force: true });
    this.deps.events.publish('volume', 'destroy', { id: name, attributes: { driver: driverName } });
  }

  private inUse(name: string, except?: string): string[] {
    const users = this.deps.containers.volumeUsers(name).filter((u) => u.id !== except);
    return [...users.map((u) => u.id), ...(this.reserved.get(name) ? ['a container being created'] : [])];
  }

  async remove(name: string, opts: VolumeRemoveOptions): Promise<void> {
    await this.locked(name, async () => {
      if (!(await this.meta(name))) {
        if (opts.force) return;
        throw new NotFoundError(`get ${name}: no such volume`);
      }
      const users = this.inUse(name);
      if (users.length > 0)
        throw new ConflictError(`remove ${name}: volume is in use - [${users.join(', ')}]`);
      await this.destroy(name);
    });
  }

  /** POST /volumes/prune: every local volume no container uses, named or anonymous (API 1.41). */
  async prune(filters: VolumeFilters): Promise<VolumePruneResponse> {
    checkFilterKeys(filters, ['label', 'label!']);
    const deleted: string[] = [];
    let reclaimed = 0;
    for (const { volume } of await this.all()) {
      const labels = volume.Labels ?? {};
      if (!(filters.get('label') ?? []).every((l) => labelMatches(labels, l))) continue;
      if ((filters.get('label!') ?? []).some((l) => labelMatches(labels, l))) continue;
      await this.locked(volume.Name, async () => {
        if (this.inUse(volume.Name).length > 0 || !(await this.meta(volume.Name))) return;
        const size = await directorySize(volume.Mountpoint);
        await this.destroy(volume.Name);
        deleted.push(volume.Name);
        reclaimed += size;
      });
    }
    this.deps.events.publish('volume', 'prune', { id: '', attributes: { reclaimed: String(reclaimed) } });
    return { VolumesDeleted: deleted.length ? deleted : null, SpaceReclaimed: reclaimed };
  }

  /** GET /system/df's volumes, each with its size and how many containers mount it. */
  async diskUsage(): Promise<Volume[]> {
    const out: Volume[] = [];
    for (const { volume, users } of await this.all()) {
      out.push({
        ...volume,
        // A plugin's volume is not svcd's to measure: -1, as dockerd reports it.
        UsageData: {
          Size: volume.Driver === localDriver ? await directorySize(volume.Mountpoint) : -1,
          RefCount: users.length,
        },
      });
    }
    return out;
  }

  /**
   * The volume a container asks for, made when missing and reserved for that container until
   * `settle`. A new, empty volume gets a copy of what the image has at the mount point (unless
   * NoCopy), as Docker does.
   */
  async resolve(request: VolumeRequest, rootfs: string): Promise<VolumeResolution> {
    const name = request.Name || randomBytes(32).toString('hex');
    if (request.Name) validateVolumeName(request.Name);
    // Without a driver named, an existing volume is used whatever its driver, as dockerd does.
    const existing = request.Name && !request.Driver ? await this.meta(name) : undefined;
    const driver = await this.driverFor(request.Driver || existing?.Driver || localDriver);
    if (!driver) validateLocalOptions(request.DriverOptions);
    return this.locked(name, async () => {
      const { meta, created } = await this.findOrMake(
        name,
        {
          Driver: driver?.name ?? localDriver,
          Labels: Object.keys(request.Labels).length ? request.Labels : null,
          Options: Object.keys(request.DriverOptions).length ? request.DriverOptions : null,
        },
        driver,
      );
      this.reserved.set(name, (this.reserved.get(name) ?? 0) + 1);
      if (!request.NoCopy && !driver)
        await this.copyUp(name, meta, resolveInRootfs(rootfs, request.Destination));
      return { Name: name, Source: this.data(name), Driver: meta.Driver, created };
    });
  }

  /** Ends the reservations `resolve` took, once the container is registered or rolled back. */
  settle(names: string[]): void {
    for (const name of names) {
      const left = (this.reserved.get(name) ?? 1) - 1;
      if (left > 0) this.reserved.set(name, left);
      else this.reserved.delete(name);
    }
  }

  private async copyUp(name: string, meta: VolumeMeta, from: string): Promise<void> {
    const isDir = await stat(from).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDir) return;
    const target = this.data(name);
    const mounted = await this.mount(name, meta);
    try {
      if ((await readdir(target)).length === 0) await run('cp', ['-a', `${from}/.`, target]);
    } finally {
      if (mounted && !this.needsMount(name)) await unmount(target, true);
    }
  }

  /** Whether a running container or an archive operation still uses the volume's mount. */
  private needsMount(name: string): boolean {
    return this.lent.has(name) || this.deps.containers.volumeUsers(name).some((u) => u.running);
  }

  /** Mounts a mount-type volume that is not mounted yet; says whether it did. */
  private async mount(name: string, meta: VolumeMeta): Promise<boolean> {
    if (!meta.Options || !isMountVolume(meta.Options)) return false;
    const target = this.data(name);
    if (await isMounted(target)) return false;
    try {
      await run('mount', mountArgs(meta.Options, target));
    } catch (err) {
      const reason = (err as { stderr?: string }).stderr?.trim() || (err as Error).message;
      throw new SystemError(`error while mounting volume '${target}': ${reason}`);
    }
    return true;
  }

  /**
   * Before container `id` starts: its mount-type volumes mounted, and its plugins' volumes
   * mounted by their drivers (VolumeDriver.Mount) and bound on _data, where the container's
   * spec binds them from.
   */
  async prepare(names: string[], id: string): Promise<void> {
    for (const name of names) {
      await this.locked(name, async () => {
        const meta = await this.meta(name);
        if (!meta) return;
        const driver = await this.driverFor(meta.Driver);
        if (!driver) {
          await this.mount(name, meta);
          return;
        }
        const source = await driver.mount(name, id);
        const target = this.data(name);
        if (!(await isMounted(target))) await run('mount', ['--rbind', source, target]);
      });
    }
  }

  /** After container `id` stops: mount-type and plugin volumes no running container uses any more unmounted. */
  async release(names: string[], id: string): Promise<void> {
    for (const name of names) {
      await this.locked(name, async () => {
        const meta = await this.meta(name);
        if (!meta) return;
        const driver = await this.driverFor(meta.Driver);
        if (!driver && (!meta.Options || !isMountVolume(meta.Options))) return;
        if (!this.needsMount(name)) await unmount(this.data(name));
        await driver?.unmount(name, id);
      });
    }
  }

  /** Before an archive operation: the container's mount-type volumes mounted, and counted. */
  async lend(names: string[]): Promise<void> {
    for (const name of names) {
      await this.locked(name, async () => {
        const meta = await this.meta(name);
        if (!meta?.Options || !isMountVolume(meta.Options)) return;
        await this.mount(name, meta);
        this.lent.set(name, (this.lent.get(name) ?? 0) + 1);
      });
    }
  }

  /** After it: those no running container and no other operation uses are unmounted. */
  async giveBack(names: string[]): Promise<void> {
    for (const name of names) {
      await this.locked(name, async () => {
        const left = (this.lent.get(name) ?? 0) - 1;
        if (left < 0) return;
        if (left > 0) this.lent.set(name, left);
        else this.lent.delete(name);
        if (!this.needsMount(name)) await unmount(this.data(name));
      });
    }
  }

  /** `rm -v`: an anonymous volume goes with its container unless another container still uses it. */
  async removeAnonymous(name: string, container: string): Promise<void> {
    await this.locked(name, async () => {
      if (this.inUse(name, container).length > 0 || !(await this.meta(name))) return;
      await this.destroy(name);
    });
  }
}

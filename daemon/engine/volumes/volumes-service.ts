// Volumes as the API sees them: create, inspect, list, remove, prune, /system/df, and the volumes
// a container's mounts ask for. The records on disk (volume-records.ts), the plugins' drivers
// (volume-drivers.ts) and the mounting of mount-type and plugin volumes (volume-mounts.ts) are
// their own modules.
//
// Safety: a volume appears whole or not at all (it is assembled in a temp directory and renamed
// into place); every change to one name runs under that name's lock, and a container being
// created holds a reservation on its volumes until its record is registered, so a removal
// racing a create either wins before the create sees the volume or is refused as in use.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { ConflictError, NotFoundError, InvalidParameterError } from '../../api/errors';
import type {
  Volume,
  VolumeCreateBody,
  VolumeFilters,
  VolumeListResponse,
  VolumePruneResponse,
  VolumeRemoveOptions,
} from '../../api/volume-types';
import { checkFilterKeys, labelMatches } from '../../lib/filters';
import { validateVolumeName } from '../../runtime/oci-spec/mount-paths';
import type { VolumeRequest } from '../../runtime/oci-spec/mount-types';
import { resolveInRootfs } from '../../runtime/oci-spec/rootfs-path';
import { isMounted, unmount } from '../shared/mounts';
import type { ContainerUsage, VolumeUser } from '../shared/container-usage';
import type { EventsService } from '../events/events-service';
import type { VolumeDriverClient } from '../plugins/plugin-protocol';
import { validateLocalOptions } from './local-driver-options';
import { VolumeDrivers, type VolumePlugins } from './volume-drivers';
import { VolumeMounts } from './volume-mounts';
import {
  directorySize,
  localDriver,
  rfc3339Seconds,
  type VolumeMeta,
  type VolumeRecords,
} from './volume-records';

export interface VolumesServiceDeps {
  /** The volumes on disk, made before the plugins (which ask how many volumes a driver serves). */
  records: VolumeRecords;
  events: EventsService;
  /** Which containers use a volume (none may be removed while one does). */
  containers: Pick<ContainerUsage, 'volumeUsers'>;
  /** The plugins' volume drivers. */
  plugins: VolumePlugins;
}

export interface VolumeResolution {
  Name: string;
  Source: string;
  Driver: string;
  created: boolean;
}

function parseBoolFilter(key: string, value: string): boolean {
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new InvalidParameterError(`invalid filter '${key}=${value}'`);
}

export class VolumesService {
  /** Volumes promised to containers still being created. */
  private readonly reserved = new Map<string, number>();
  private readonly records: VolumeRecords;
  private readonly drivers: VolumeDrivers;
  private readonly mounts: VolumeMounts;

  constructor(private readonly deps: VolumesServiceDeps) {
    this.records = deps.records;
    this.drivers = new VolumeDrivers(deps.plugins, deps.containers);
    this.mounts = new VolumeMounts(deps.records, this.drivers, deps.containers);
  }

  private async findOrMake(
    name: string,
    wanted: Omit<VolumeMeta, 'CreatedAt'>,
    driver?: VolumeDriverClient,
  ): Promise<{ meta: VolumeMeta; created: boolean }> {
    const existing = await this.records.meta(name);
    if (existing) {
      if (existing.Driver !== wanted.Driver) {
        throw new ConflictError(`a volume with name ${name} already exists with driver "${existing.Driver}"`);
      }
      return { meta: existing, created: false };
    }
    const meta = { ...wanted, CreatedAt: rfc3339Seconds(Date.now()) };
    await driver?.create(name, wanted.Options ?? {});
    await this.records.make(name, meta);
    return { meta, created: true };
  }

  /** POST /volumes/create: a new volume, or the existing one of that name and driver. */
  async create(body: VolumeCreateBody): Promise<Volume> {
    const name = body.Name || randomBytes(32).toString('hex');
    validateVolumeName(name);
    const driver = await this.drivers.driverFor(body.Driver || localDriver);
    const options = body.DriverOpts ?? {};
    if (!driver) validateLocalOptions(options);
    return this.records.locked(name, async () => {
      const { meta } = await this.findOrMake(
        name,
        { Driver: driver?.name ?? localDriver, Labels: body.Labels ?? {}, Options: options },
        driver,
      );
      return this.drivers.withDriverView(this.records.view(name, meta));
    });
  }

  async inspect(name: string): Promise<Volume> {
    const meta = await this.records.meta(name);
    if (!meta) throw new NotFoundError(`get ${name}: no such volume`);
    return this.drivers.withDriverView(this.records.view(name, meta));
  }

  private async all(): Promise<Array<{ volume: Volume; users: VolumeUser[] }>> {
    const out: Array<{ volume: Volume; users: VolumeUser[] }> = [];
    for (const name of await this.records.names()) {
      const meta = await this.records.meta(name);
      if (meta)
        out.push({ volume: this.records.view(name, meta), users: this.deps.containers.volumeUsers(name) });
    }
    return out;
  }

  async list(filters: VolumeFilters): Promise<VolumeListResponse> {
    checkFilterKeys(filters, ['name', 'driver', 'label', 'dangling']);
    const dangling = filters.get('dangling')?.map((v) => parseBoolFilter('dangling', v));
    const warnings: string[] = [];
    const Volumes = (await this.drivers.withDriverListed(await this.all(), warnings))
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
    const driverName = (await this.records.meta(name))?.Driver ?? localDriver;
    const driver = await this.drivers.driverFor(driverName);
    await driver?.remove(name);
    const data = this.records.data(name);
    if (await isMounted(data)) await unmount(data, true);
    await rm(this.records.dir(name), { recursive: true, force: true });
    this.deps.events.publish('volume', 'destroy', { id: name, attributes: { driver: driverName } });
  }

  private inUse(name: string, except?: string): string[] {
    const users = this.deps.containers.volumeUsers(name).filter((u) => u.id !== except);
    return [...users.map((u) => u.id), ...(this.reserved.get(name) ? ['a container being created'] : [])];
  }

  async remove(name: string, opts: VolumeRemoveOptions): Promise<void> {
    await this.records.locked(name, async () => {
      if (!(await this.records.meta(name))) {
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
      await this.records.locked(volume.Name, async () => {
        if (this.inUse(volume.Name).length > 0 || !(await this.records.meta(volume.Name))) return;
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
    const existing = request.Name && !request.Driver ? await this.records.meta(name) : undefined;
    const driver = await this.drivers.driverFor(request.Driver || existing?.Driver || localDriver);
    if (!driver) validateLocalOptions(request.DriverOptions);
    return this.records.locked(name, async () => {
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
        await this.mounts.copyUp(name, meta, resolveInRootfs(rootfs, request.Destination));
      return { Name: name, Source: this.records.data(name), Driver: meta.Driver, created };
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

  /** Before container `id` starts: its volumes mounted (volume-mounts.ts). */
  prepare(names: string[], id: string): Promise<void> {
    return this.mounts.prepare(names, id);
  }

  /** After container `id` stops: volumes no running container uses any more unmounted. */
  release(names: string[], id: string): Promise<void> {
    return this.mounts.release(names, id);
  }

  /** Before an archive operation: the container's mount-type volumes mounted, and counted. */
  lend(names: string[]): Promise<void> {
    return this.mounts.lend(names);
  }

  /** After it: those no running container and no other operation uses are unmounted. */
  giveBack(names: string[]): Promise<void> {
    return this.mounts.giveBack(names);
  }

  /** `rm -v`: an anonymous volume goes with its container unless another container still uses it. */
  async removeAnonymous(name: string, container: string): Promise<void> {
    await this.records.locked(name, async () => {
      if (this.inUse(name, container).length > 0 || !(await this.records.meta(name))) return;
      await this.destroy(name);
    });
  }
}

// Mount-type volumes (made with `type`/`device`/`o` options) are mounted on `_data` when the
// first container using them starts and unmounted when the last one stops; as in dockerd, an
// archive operation on a container that does not run mounts them too, for as long as it lasts.
// A plugin's volume is mounted by its driver and bound on `_data`.
import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { SystemError } from '../../api/errors';
import type { ContainerUsage } from '../shared/container-usage';
import type { VolumeDriverClient } from '../plugins/plugin-protocol';
import { isMounted, unmount } from '../shared/mounts';
import { isMountVolume, mountArgs } from './local-driver-options';
import type { VolumeDrivers } from './volume-drivers';
import type { VolumeMeta, VolumeRecords } from './volume-records';

const run = promisify(execFile);

export class VolumeMounts {
  /** Mount-type volumes mounted for archive operations still under way, and how many. */
  private readonly lent = new Map<string, number>();

  constructor(
    private readonly records: VolumeRecords,
    private readonly drivers: VolumeDrivers,
    private readonly containers: Pick<ContainerUsage, 'volumeUsers'>,
  ) {}

  /** A new volume gets what the image has at its mount point (mounted first when it is mount-type). */
  async copyUp(name: string, meta: VolumeMeta, from: string): Promise<void> {
    const isDir = await stat(from).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDir) return;
    const target = this.records.data(name);
    const mounted = await this.mount(name, meta);
    try {
      if ((await readdir(target)).length === 0) await run('cp', ['-a', `${from}/.`, target]);
    } finally {
      if (mounted && !this.needsMount(name)) await unmount(target, true);
    }
  }

  /** Whether a running container or an archive operation still uses the volume's mount. */
  private needsMount(name: string): boolean {
    return this.lent.has(name) || this.containers.volumeUsers(name).some((u) => u.running);
  }

  /** Mounts a mount-type volume that is not mounted yet; says whether it did. */
  private async mount(name: string, meta: VolumeMeta): Promise<boolean> {
    if (!meta.Options || !isMountVolume(meta.Options)) return false;
    const target = this.records.data(name);
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
    await this.eachRecorded(names, async (name, meta, driver) => {
      if (!driver) {
        await this.mount(name, meta);
        return;
      }
      const source = await driver.mount(name, id);
      const target = this.records.data(name);
      if (!(await isMounted(target))) await run('mount', ['--rbind', source, target]);
    });
  }

  /** After container `id` stops: mount-type and plugin volumes no running container uses any more unmounted. */
  async release(names: string[], id: string): Promise<void> {
    await this.eachRecorded(names, async (name, meta, driver) => {
      if (!driver && (!meta.Options || !isMountVolume(meta.Options))) return;
      if (!this.needsMount(name)) await unmount(this.records.data(name));
      await driver?.unmount(name, id);
    });
  }

  /** `work` on each of the volumes still recorded, under its lock, with its plugin (none for local). */
  private async eachRecorded(
    names: string[],
    work: (name: string, meta: VolumeMeta, driver: VolumeDriverClient | undefined) => Promise<void>,
  ): Promise<void> {
    for (const name of names) {
      await this.records.locked(name, async () => {
        const meta = await this.records.meta(name);
        if (meta) await work(name, meta, await this.drivers.driverFor(meta.Driver));
      });
    }
  }

  /** Before an archive operation: the container's mount-type volumes mounted, and counted. */
  async lend(names: string[]): Promise<void> {
    for (const name of names) {
      await this.records.locked(name, async () => {
        const meta = await this.records.meta(name);
        if (!meta?.Options || !isMountVolume(meta.Options)) return;
        await this.mount(name, meta);
        this.lent.set(name, (this.lent.get(name) ?? 0) + 1);
      });
    }
  }

  /** After it: those no running container and no other operation uses are unmounted. */
  async giveBack(names: string[]): Promise<void> {
    for (const name of names) {
      await this.records.locked(name, async () => {
        const left = (this.lent.get(name) ?? 0) - 1;
        if (left < 0) return;
        if (left > 0) this.lent.set(name, left);
        else this.lent.delete(name);
        if (!this.needsMount(name)) await unmount(this.records.data(name));
      });
    }
  }
}

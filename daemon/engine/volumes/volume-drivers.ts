// Volumes of plugins' drivers: the plugin serving a driver, and what it says of its volumes
// (VolumeDriver.Get for one, VolumeDriver.List for a list).
import type { Volume } from '../../api/volume-types';
import type { VolumeUser, ContainerUsage } from '../shared/container-usage';
import type { VolumeDriverClient } from '../plugins/plugin-protocol';
import { localDriver } from './volume-records';

/** What volumes need of the plugins: their volume drivers. */
export interface VolumePlugins {
  /** A volume plugin by name (managed or discovered), or the NotFoundError dockerd answers. */
  volumeDriver(name: string): Promise<VolumeDriverClient>;
  /** The enabled plugin volume drivers: a list shows the volumes they list too. */
  volumeDrivers(): VolumeDriverClient[];
}

export class VolumeDrivers {
  constructor(
    private readonly plugins: VolumePlugins,
    private readonly containers: Pick<ContainerUsage, 'volumeUsers'>,
  ) {}

  /** The plugin serving `driver`, undefined for the local driver. */
  async driverFor(driver: string): Promise<VolumeDriverClient | undefined> {
    if (driver === localDriver) return undefined;
    return this.plugins.volumeDriver(driver);
  }

  /** The volume as its plugin sees it: Mountpoint and Status answered by VolumeDriver.Get. */
  async withDriverView(volume: Volume): Promise<Volume> {
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

  /**
   * What the plugins list (VolumeDriver.List): the Mountpoint of svcd's volumes of theirs, and
   * the volumes svcd has no record of, shown as dockerd shows them. A driver that fails to answer
   * is left out with a warning rather than failing the list.
   */
  async withDriverListed(
    recorded: Array<{ volume: Volume; users: VolumeUser[] }>,
    warnings: string[],
  ): Promise<Array<{ volume: Volume; users: VolumeUser[] }>> {
    const byName = new Map(recorded.map((r) => [r.volume.Name, r]));
    const out = [...recorded];
    for (const driver of this.plugins.volumeDrivers()) {
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
        out.push({ volume, users: this.containers.volumeUsers(v.Name) });
      }
    }
    return out;
  }
}

// Local volumes as plain directories under <data root>/volumes/<name>/_data: enough for
// anonymous volumes and named volumes in Binds (svcd serves no /volumes API yet).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { validateVolumeName } from '../../runtime/oci-spec/mount-paths';
import type { VolumeRequest } from '../../runtime/oci-spec/mount-types';
import { resolveInRootfs } from '../../runtime/oci-spec/rootfs-path';
import type { EventsService } from '../events/events-service';
import type { ContainerPaths } from './container-paths';
import { publishVolumeEvent } from './volume-events';

const run = promisify(execFile);

async function isEmptyDir(path: string): Promise<boolean> {
  return (await readdir(path)).length === 0;
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

export interface LocalVolume {
  Name: string;
  Mountpoint: string;
  CreatedAt: string;
  Size: number;
}

export interface VolumeResolution {
  Name: string;
  Source: string;
  created: boolean;
}

export class LocalVolumes {
  constructor(
    private readonly paths: ContainerPaths,
    private readonly events: EventsService,
  ) {}

  /**
   * The volume for a request, created when missing. A new, empty volume gets a copy of what the
   * image has at the mount point (unless NoCopy), as Docker does.
   */
  async resolve(request: VolumeRequest, rootfs: string): Promise<VolumeResolution> {
    const name = request.Name || randomBytes(32).toString('hex');
    if (request.Name) validateVolumeName(request.Name);
    const source = this.paths.volumeData(name);
    const created = !(await stat(source).then(
      () => true,
      () => false,
    ));
    await mkdir(source, { recursive: true, mode: 0o755 });
    if (!request.NoCopy && (await isEmptyDir(source))) {
      const from = resolveInRootfs(rootfs, request.Destination);
      const isDir = await stat(from).then(
        (s) => s.isDirectory(),
        () => false,
      );
      if (isDir) await run('cp', ['-a', `${from}/.`, source]);
    }
    if (created) publishVolumeEvent(this.events, 'create', name);
    return { Name: name, Source: source, created };
  }

  /** Every volume on disk with the size of its data. */
  async list(): Promise<LocalVolume[]> {
    const names = await readdir(this.paths.volumesDir).catch(() => [] as string[]);
    const volumes: LocalVolume[] = [];
    for (const name of names.sort()) {
      const data = this.paths.volumeData(name);
      const info = await stat(data).catch(() => undefined);
      if (!info?.isDirectory()) continue;
      const CreatedAt = new Date(info.birthtimeMs || info.ctimeMs).toISOString().replace(/\.\d+Z$/, 'Z');
      volumes.push({ Name: name, Mountpoint: data, CreatedAt, Size: await directorySize(data) });
    }
    return volumes;
  }

  async remove(name: string): Promise<void> {
    await rm(dirname(this.paths.volumeData(name)), { recursive: true, force: true });
    publishVolumeEvent(this.events, 'destroy', name);
  }
}

// Every mount a container asks for, in one list with Docker's precedence: Binds, Mounts and
// Tmpfs first (a destination twice among them is an error), then VolumesFrom, then the
// anonymous volumes of Config.Volumes and the image's Volumes for destinations still free.
import { InvalidParameterError } from '../../api/errors';
import type { ContainerConfig, HostConfig } from '../../api/container-types';
import { parseBind, parseBindMode } from './bind-spec';
import { validateDestination } from './mount-paths';
import { parseMount } from './mount-spec';
import type { MountRequest, ResolvedMount, VolumeRequest } from './mount-types';
import { tmpfsOptionsFromString } from './tmpfs-options';

export interface MountPlanInput {
  config: Pick<ContainerConfig, 'Volumes'>;
  hostConfig: Pick<HostConfig, 'Binds' | 'Mounts' | 'Tmpfs' | 'VolumeDriver'>;
  image?: { Volumes?: Record<string, unknown> | null };
  /** Mounts inherited through VolumesFrom, already resolved by the engine (see inheritVolumesFrom). */
  volumesFrom?: ResolvedMount[];
}

export interface VolumesFromEntry {
  container: string;
  /** undefined keeps each inherited mount's own mode. */
  readOnly?: boolean;
}

export function parseVolumesFrom(entry: string): VolumesFromEntry {
  const colon = entry.indexOf(':');
  const container = colon < 0 ? entry : entry.slice(0, colon);
  if (container === '') throw new InvalidParameterError(`invalid volumes-from specification: '${entry}'`);
  if (colon < 0) return { container };
  const mode = parseBindMode(entry.slice(colon + 1));
  if (!mode) throw new InvalidParameterError(`invalid mode: ${entry.slice(colon + 1)}`);
  return { container, readOnly: mode.readOnly };
}

/** The mounts of a VolumesFrom source container, with the entry's ro/rw applied. */
export function inheritVolumesFrom(entry: VolumesFromEntry, mounts: ResolvedMount[]): ResolvedMount[] {
  return mounts.map((m) => (entry.readOnly === undefined ? m : { ...m, ReadOnly: entry.readOnly }));
}

function anonymousVolume(destination: string, driver: string): VolumeRequest {
  return {
    Type: 'volume',
    Name: '',
    Destination: validateDestination(destination),
    ReadOnly: false,
    NoCopy: false,
    Driver: driver,
    Labels: {},
    DriverOptions: {},
  };
}

export function planMounts(input: MountPlanInput): MountRequest[] {
  const { hostConfig } = input;
  const explicit: MountRequest[] = [
    // --volume-driver names the driver of the volumes of Binds and Volumes; Mounts name their own.
    ...(hostConfig.Binds ?? [])
      .map(parseBind)
      .map((m) =>
        m.Type === 'volume' && hostConfig.VolumeDriver ? { ...m, Driver: hostConfig.VolumeDriver } : m,
      ),
    ...(hostConfig.Mounts ?? []).map(parseMount),
    ...Object.entries(hostConfig.Tmpfs ?? {}).map(([destination, options]): MountRequest => ({
      Type: 'tmpfs',
      Destination: validateDestination(destination),
      ReadOnly: false,
      Options: tmpfsOptionsFromString(options),
    })),
  ];
  const taken = new Set<string>();
  for (const mount of explicit) {
    if (taken.has(mount.Destination))
      throw new InvalidParameterError(`Duplicate mount point: ${mount.Destination}`);
    taken.add(mount.Destination);
  }
  const plan = [...explicit];
  const add = (mount: MountRequest) => {
    if (taken.has(mount.Destination)) return;
    taken.add(mount.Destination);
    plan.push(mount);
  };
  for (const mount of input.volumesFrom ?? []) add(mount);
  for (const destination of Object.keys(input.config.Volumes ?? {}))
    add(anonymousVolume(destination, hostConfig.VolumeDriver ?? ''));
  for (const destination of Object.keys(input.image?.Volumes ?? {}))
    add(anonymousVolume(destination, hostConfig.VolumeDriver ?? ''));
  return plan;
}

/** Turns volume requests into host paths through the engine's volume service. */
export async function resolveMounts(
  plan: MountRequest[],
  resolveVolume: (request: VolumeRequest) => Promise<{ Name: string; Source: string; Driver: string }>,
): Promise<ResolvedMount[]> {
  const resolved: ResolvedMount[] = [];
  for (const mount of plan) {
    if (mount.Type !== 'volume' || 'Source' in mount) {
      resolved.push(mount as ResolvedMount);
      continue;
    }
    const volume = await resolveVolume(mount);
    resolved.push({ ...mount, Name: volume.Name, Source: volume.Source, Driver: volume.Driver });
  }
  return resolved;
}

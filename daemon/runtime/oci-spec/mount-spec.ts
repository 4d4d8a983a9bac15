// HostConfig.Mounts items (API 1.25+): bind, volume and tmpfs, with dockerd's
// "invalid mount config for type" errors.
import { existsSync } from 'node:fs';
import { InvalidParameterError } from '../../api/errors';
import type { Mount, MountPropagation } from '../../api/container-types';
import { DEFAULT_PROPAGATION, MOUNT_PROPAGATIONS } from './bind-spec';
import { validateDestination, validateVolumeName } from './mount-paths';
import type { MountRequest } from './mount-types';
import { tmpfsOptionsFromMount } from './tmpfs-options';

function mountError(type: string, reason: string): InvalidParameterError {
  return new InvalidParameterError(`invalid mount config for type ${JSON.stringify(type)}: ${reason}`);
}

function checkTarget(mount: Mount, type: string): string {
  if (!mount.Target) throw mountError(type, 'field Target must not be empty');
  try {
    return validateDestination(mount.Target);
  } catch (err) {
    throw mountError(type, (err as Error).message);
  }
}

function refuseFields(
  mount: Mount,
  type: string,
  fields: ('BindOptions' | 'VolumeOptions' | 'TmpfsOptions')[],
): void {
  for (const field of fields)
    if (mount[field]) throw mountError(type, `field ${field} must not be specified`);
}

function parseBindMount(mount: Mount, destination: string): MountRequest {
  refuseFields(mount, 'bind', ['VolumeOptions', 'TmpfsOptions']);
  const source = mount.Source ?? '';
  if (source === '') throw mountError('bind', 'field Source must not be empty');
  if (!source.startsWith('/'))
    throw mountError('bind', `invalid mount path: '${source}' mount path must be absolute`);
  if (!existsSync(source)) throw mountError('bind', `bind source path does not exist: ${source}`);
  const propagation = mount.BindOptions?.Propagation || DEFAULT_PROPAGATION;
  if (!MOUNT_PROPAGATIONS.has(propagation))
    throw mountError('bind', `invalid propagation mode: ${propagation}`);
  return {
    Type: 'bind',
    Source: source,
    Destination: destination,
    ReadOnly: !!mount.ReadOnly,
    Propagation: propagation as MountPropagation,
    Recursive: !mount.BindOptions?.NonRecursive,
    CreateSource: false,
  };
}

function parseVolumeMount(mount: Mount, destination: string): MountRequest {
  refuseFields(mount, 'volume', ['BindOptions', 'TmpfsOptions']);
  const name = mount.Source ?? '';
  if (name !== '') validateVolumeName(name);
  const options = mount.VolumeOptions;
  return {
    Type: 'volume',
    Name: name,
    Destination: destination,
    ReadOnly: !!mount.ReadOnly,
    NoCopy: !!options?.NoCopy,
    Driver: options?.DriverConfig?.Name || '',
    Labels: options?.Labels ?? {},
    DriverOptions: options?.DriverConfig?.Options ?? {},
  };
}

function parseTmpfsMount(mount: Mount, destination: string): MountRequest {
  refuseFields(mount, 'tmpfs', ['BindOptions', 'VolumeOptions']);
  if (mount.Source) throw mountError('tmpfs', 'field Source must not be specified');
  return {
    Type: 'tmpfs',
    Destination: destination,
    ReadOnly: !!mount.ReadOnly,
    Options: tmpfsOptionsFromMount(mount.TmpfsOptions, !!mount.ReadOnly),
  };
}

export function parseMount(mount: Mount): MountRequest {
  const type = mount.Type ?? '';
  switch (type) {
    case 'bind':
      return parseBindMount(mount, checkTarget(mount, type));
    case 'volume':
      return parseVolumeMount(mount, checkTarget(mount, type));
    case 'tmpfs':
      return parseTmpfsMount(mount, checkTarget(mount, type));
    default:
      throw mountError(type, 'mount type unknown');
  }
}

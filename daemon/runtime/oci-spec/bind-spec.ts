// HostConfig.Binds: `host:ctr`, `host:ctr:ro|rw`, `volume:ctr[:opts]`, and the lone `/ctr`
// (an anonymous volume). Options: ro/rw, a propagation mode, z/Z (SELinux relabel, tolerated
// without effect on this host), nocopy, and the Docker for Mac consistency words.
import { InvalidParameterError } from '../../api/errors';
import type { MountPropagation } from '../../api/container-types';
import { validateDestination, validateVolumeName } from './mount-paths';
import type { MountRequest } from './mount-types';

export const MOUNT_PROPAGATIONS = new Set(['private', 'rprivate', 'shared', 'rshared', 'slave', 'rslave']);
const MODE_GROUPS: Record<string, string> = {
  rw: 'rw',
  ro: 'rw',
  z: 'label',
  Z: 'label',
  nocopy: 'copy',
  consistent: 'consistency',
  cached: 'consistency',
  delegated: 'consistency',
  ...Object.fromEntries([...MOUNT_PROPAGATIONS].map((p) => [p, 'propagation'])),
};

export const DEFAULT_PROPAGATION: MountPropagation = 'rprivate';

export interface BindMode {
  readOnly: boolean;
  propagation?: MountPropagation;
  noCopy: boolean;
}

/** Parses `ro,rshared,z`; at most one word of each kind. */
export function parseBindMode(mode: string): BindMode | undefined {
  const seen = new Set<string>();
  const result: BindMode = { readOnly: false, noCopy: false };
  for (const word of mode.split(',')) {
    const group = MODE_GROUPS[word];
    if (!group || seen.has(group)) return undefined;
    seen.add(group);
    if (word === 'ro') result.readOnly = true;
    if (word === 'nocopy') result.noCopy = true;
    if (group === 'propagation') result.propagation = word as MountPropagation;
  }
  return result;
}

function invalidSpec(raw: string): InvalidParameterError {
  return new InvalidParameterError(`invalid volume specification: '${raw}'`);
}

export function parseBind(raw: string): MountRequest {
  const parts = raw.split(':');
  if (parts.length > 3 || parts.some((p) => p === '')) throw invalidSpec(raw);
  if (parts.length === 2 && parseBindMode(parts[1])) throw invalidSpec(raw);
  const [source, target, modeText] = parts.length === 1 ? ['', parts[0], undefined] : parts;
  const mode = modeText === undefined ? { readOnly: false, noCopy: false } : parseBindMode(modeText);
  if (!mode) throw new InvalidParameterError(`invalid mode: ${modeText}`);
  const destination = validateDestination(target);
  if (source.startsWith('/')) {
    return {
      Type: 'bind',
      Source: source,
      Destination: destination,
      ReadOnly: mode.readOnly,
      Propagation: mode.propagation ?? DEFAULT_PROPAGATION,
      Recursive: true,
      CreateSource: true,
    };
  }
  if (mode.propagation)
    throw new InvalidParameterError(`invalid mode: ${modeText}: propagation applies to bind mounts only`);
  if (source !== '') validateVolumeName(source);
  return {
    Type: 'volume',
    Name: source,
    Destination: destination,
    ReadOnly: mode.readOnly,
    NoCopy: mode.noCopy,
    Driver: '',
    Labels: {},
    DriverOptions: {},
  };
}

// Checks shared by every way of asking for a mount: absolute, clean destinations other than /.
import { posix } from 'node:path';
import { InvalidParameterError } from '../../api/errors';

export function validateDestination(destination: string): string {
  if (!destination.startsWith('/')) {
    throw new InvalidParameterError(`invalid mount path: '${destination}' mount path must be absolute`);
  }
  const clean = posix.normalize(destination).replace(/(.)\/$/, '$1');
  if (clean === '/') throw new InvalidParameterError("invalid specification: destination can't be '/'");
  return clean;
}

export const LOCAL_VOLUME_NAME_CHARS = '[a-zA-Z0-9][a-zA-Z0-9_.-]';
const volumeNamePattern = new RegExp(`^${LOCAL_VOLUME_NAME_CHARS}+$`);

export function validateVolumeName(name: string): void {
  if (!volumeNamePattern.test(name)) {
    throw new InvalidParameterError(
      `create ${name}: ${JSON.stringify(name)} includes invalid characters for a local volume name, only ` +
        `${JSON.stringify(LOCAL_VOLUME_NAME_CHARS)} are allowed. If you intended to pass a host directory, use absolute path`,
    );
  }
}

// Init: tini from the host bind-mounted at /sbin/docker-init, reaping zombies as PID 1.
import { InvalidParameterError } from '../../api/errors';
import type { OciMount } from './oci-types';

export const INIT_PATH_IN_CONTAINER = '/sbin/docker-init';

export function initMount(initBinary: string | undefined): OciMount {
  if (!initBinary) {
    throw new InvalidParameterError('Init was requested but no init binary (tini) is installed on this host');
  }
  return { destination: INIT_PATH_IN_CONTAINER, type: 'bind', source: initBinary, options: ['bind', 'ro'] };
}

export function withInit(args: string[]): string[] {
  return [INIT_PATH_IN_CONTAINER, '--', ...args];
}

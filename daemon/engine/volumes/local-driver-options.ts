// The local driver's options (`docker volume create --opt`): `type`, `device` and `o` make a
// volume that is a mount (tmpfs, a bind of a host directory, any filesystem `mount` knows),
// checked as dockerd checks them so a bad one is refused at create, not at the first run.
import { InvalidParameterError } from '../../api/errors';

/** Each option and the options it needs beside it. */
const required: Record<string, string[]> = {
  type: ['device'],
  device: ['type'],
  o: ['device', 'type'],
};

export function validateLocalOptions(options: Record<string, string>): void {
  for (const key of Object.keys(options)) {
    if (key === 'size') throw new InvalidParameterError('quota size requested but no quota support');
    if (!(key in required)) throw new InvalidParameterError(`invalid option: ${JSON.stringify(key)}`);
  }
  for (const key of Object.keys(options)) {
    for (const needed of required[key]) {
      if (!(needed in options))
        throw new InvalidParameterError(`missing required option: ${JSON.stringify(needed)}`);
    }
  }
  if (options.type === 'none' && !/(^|,)r?bind(,|$)/.test(options.o ?? '')) {
    throw new InvalidParameterError('type "none" needs o=bind (a bind of an existing host directory)');
  }
}

/** Whether the volume is a mount made at first use rather than a plain directory. */
export function isMountVolume(options: Record<string, string> | null): boolean {
  return !!options?.type;
}

/** The `mount` arguments that mount the volume's device on `target`. */
export function mountArgs(options: Record<string, string>, target: string): string[] {
  const args = options.type === 'none' ? [] : ['-t', options.type];
  if (options.o) args.push('-o', options.o);
  return [...args, options.device, target];
}

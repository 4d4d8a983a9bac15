// RestartPolicy rules and the AutoRemove conflict, with dockerd's messages.
import { InvalidParameterError } from '../../api/errors';
import type { RestartPolicy } from '../../api/container-types';

export function isNoRestart(policy: RestartPolicy | null | undefined): boolean {
  return !policy || policy.Name === undefined || policy.Name === '' || policy.Name === 'no';
}

export function validateRestartPolicy(policy: RestartPolicy | null | undefined): void {
  if (!policy) return;
  const name = policy.Name ?? '';
  const retries = policy.MaximumRetryCount ?? 0;
  switch (name) {
    case '':
      return;
    case 'no':
    case 'always':
    case 'unless-stopped':
      if (retries !== 0) {
        throw new InvalidParameterError(`maximum retry count cannot be used with restart policy '${name}'`);
      }
      return;
    case 'on-failure':
      if (retries < 0) throw new InvalidParameterError('maximum retry count cannot be negative');
      return;
    default:
      throw new InvalidParameterError(`invalid restart policy '${name}'`);
  }
}

export function validateAutoRemove(
  autoRemove: boolean | undefined,
  policy: RestartPolicy | null | undefined,
): void {
  if (autoRemove && !isNoRestart(policy)) {
    throw new InvalidParameterError("can't create 'AutoRemove' container with restart policy");
  }
}

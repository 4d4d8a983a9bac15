// Restart policies: whether an exited container restarts, and after how long. The delay starts
// at 100 ms and doubles with each restart in a row, back to 100 ms once a run lasted 10 s.
import type { RestartPolicy } from '../../api/container-types';

export const INITIAL_RESTART_DELAY_MS = 100;
const MAX_RESTART_DELAY_MS = 60_000;
const RESET_AFTER_RUN_MS = 10_000;

export interface RestartInput {
  policy: RestartPolicy | null | undefined;
  exitCode: number;
  manuallyStopped: boolean;
  restartCount: number;
}

export function shouldRestart(input: RestartInput): boolean {
  if (input.manuallyStopped) return false;
  switch (input.policy?.Name) {
    case 'always':
    case 'unless-stopped':
      return true;
    case 'on-failure': {
      const max = input.policy.MaximumRetryCount ?? 0;
      return input.exitCode !== 0 && (max === 0 || input.restartCount < max);
    }
    default:
      return false;
  }
}

/** When svcd starts: `always` restarts even a container stopped by hand, as Docker does. */
export function shouldStartAtBoot(input: RestartInput): boolean {
  if (input.policy?.Name === 'always') return true;
  return shouldRestart(input);
}

export function nextRestartDelay(previousMs: number, ranForMs: number): number {
  if (previousMs === 0 || ranForMs >= RESET_AFTER_RUN_MS) return INITIAL_RESTART_DELAY_MS;
  return Math.min(previousMs * 2, MAX_RESTART_DELAY_MS);
}

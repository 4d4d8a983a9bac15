// The state machine of the spec (created, running, paused, restarting, removing, exited, dead):
// each transition sets every State field at once, so the booleans never disagree with Status.
import type { ContainerStateJson, ContainerStatus } from '../../api/container-summary-types';
import { nowRfc3339Nano, toRfc3339Nano, ZERO_TIME } from './container-record';

function set(state: ContainerStateJson, status: ContainerStatus): void {
  state.Status = status;
  state.Running = status === 'running' || status === 'paused' || status === 'restarting';
  state.Paused = status === 'paused';
  state.Restarting = status === 'restarting';
  state.Dead = status === 'dead';
}

export function markRunning(state: ContainerStateJson, pid: number, startedAt = nowRfc3339Nano()): void {
  set(state, 'running');
  state.Pid = pid;
  state.ExitCode = 0;
  state.Error = '';
  state.OOMKilled = false;
  state.StartedAt = startedAt;
}

export function markPaused(state: ContainerStateJson, paused: boolean): void {
  set(state, paused ? 'paused' : 'running');
}

export interface ExitInfo {
  exitCode: number;
  exitedAt?: Date;
  error?: string;
}

export function markExited(state: ContainerStateJson, exit: ExitInfo): void {
  set(state, 'exited');
  state.Pid = 0;
  state.ExitCode = exit.exitCode;
  state.Error = exit.error ?? '';
  state.FinishedAt = toRfc3339Nano(exit.exitedAt);
  // Docker keeps the last health log of a stopped container and calls it unhealthy.
  if (state.Health) state.Health.Status = 'unhealthy';
}

/** A start that failed: exit code 128 (126/127 for a command that cannot run), as dockerd. */
export function markStartFailed(state: ContainerStateJson, error: string): void {
  const code = /no such file|not found/i.test(error) ? 127 : /permission denied/i.test(error) ? 126 : 128;
  set(state, state.StartedAt === ZERO_TIME ? 'created' : 'exited');
  state.Pid = 0;
  state.ExitCode = code;
  state.Error = error;
}

/** Waiting for the restart delay: still counted as running, as Docker does. */
export function markRestarting(state: ContainerStateJson): void {
  set(state, 'restarting');
  state.Pid = 0;
}

export function markRemoving(state: ContainerStateJson): void {
  set(state, 'removing');
}

export function markDead(state: ContainerStateJson, error: string): void {
  set(state, 'dead');
  state.Pid = 0;
  state.Error = error;
}

export function isRunning(state: ContainerStateJson): boolean {
  return state.Status === 'running' || state.Status === 'paused';
}

/** Docker's human duration: "3 seconds", "About a minute", "2 hours"... */
export function humanDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 1) return 'Less than a second';
  if (seconds === 1) return '1 second';
  if (seconds < 60) return `${seconds} seconds`;
  const minutes = Math.round(seconds / 60);
  if (minutes === 1) return 'About a minute';
  if (minutes < 60) return `${minutes} minutes`;
  const hours = Math.round(seconds / 3600);
  if (hours === 1) return 'About an hour';
  if (hours < 48) return `${hours} hours`;
  if (hours < 24 * 7 * 2) return `${Math.round(hours / 24)} days`;
  if (hours < 24 * 30 * 2) return `${Math.round(hours / 24 / 7)} weeks`;
  if (hours < 24 * 365 * 2) return `${Math.round(hours / 24 / 30)} months`;
  return `${Math.round(hours / 24 / 365)} years`;
}

/** The Status column of `docker ps`: "Up 3 seconds (healthy)", "Exited (0) 2 minutes ago"... */
export function statusText(state: ContainerStateJson, now = Date.now()): string {
  const since = (t: string) => humanDuration(now - Date.parse(t));
  switch (state.Status) {
    case 'running':
    case 'paused': {
      const health = state.Health
        ? state.Health.Status === 'starting'
          ? ' (health: starting)'
          : ` (${state.Health.Status})`
        : '';
      return `Up ${since(state.StartedAt)}${state.Paused ? ' (Paused)' : health}`;
    }
    case 'restarting':
      return `Restarting (${state.ExitCode}) ${since(state.FinishedAt)} ago`;
    case 'removing':
      return 'Removal In Progress';
    case 'dead':
      return 'Dead';
    case 'exited':
      return `Exited (${state.ExitCode}) ${since(state.FinishedAt)} ago`;
    default:
      return 'Created';
  }
}

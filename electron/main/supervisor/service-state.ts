// A supervised server's state (shared with the renderer through daemon/api) and restart policy.
export type { ServiceState, ServiceStatus } from '../../../daemon/api/desktop-types';

export interface RestartPolicy {
  /** First delay before a restart; doubles each time up to maxBackoffMs. */
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** A run shorter than this counts as a fast failure. */
  fastFailureMs: number;
  /** Give up (status failed) after this many fast failures in a row. */
  maxFastFailures: number;
  /** How long a fresh process has to answer its health check. */
  readyTimeoutMs: number;
  /** SIGTERM, then SIGKILL after this long. */
  stopTimeoutMs: number;
}

export const defaultRestartPolicy: RestartPolicy = {
  initialBackoffMs: 200,
  maxBackoffMs: 10_000,
  fastFailureMs: 5_000,
  maxFastFailures: 5,
  readyTimeoutMs: 30_000,
  stopTimeoutMs: 10_000,
};

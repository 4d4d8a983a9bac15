// What the UI and the tray know about one supervised server.

export type ServiceStatus = 'starting' | 'up' | 'restarting' | 'down' | 'failed';

export interface ServiceState {
  name: string;
  status: ServiceStatus;
  /** Why the service is not up (exit code and last stderr line, timeout, give-up…). */
  reason?: string;
  pid?: number;
  /** True when we found the server already answering and did not start it ourselves. */
  adopted: boolean;
  /** Restarts after a crash since the supervisor started. */
  restarts: number;
  /** Epoch ms of the last status change. */
  since: number;
  logFile: string;
  /** Where the server is reached: unix socket path or base URL. */
  endpoint: string;
}

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

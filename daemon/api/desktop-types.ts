// What the desktop gateway's own API (/api/state, /api/settings) answers: written by the Electron
// main process, read by the renderer, so both sides import these types from here.

export type ServiceStatus = 'starting' | 'up' | 'restarting' | 'down' | 'failed';

/** What the UI and the tray know about one supervised server. */
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

/** CPU time and resident memory of one process, from /proc. */
export interface ProcUsage {
  pid: number;
  cpuSeconds: number;
  rssBytes: number;
}

/** GET /api/state: the supervised servers, and what the app and the servers cost. */
export interface DesktopState {
  services: ServiceState[];
  usage: Record<string, ProcUsage | undefined>;
}

/** GET/PUT /api/settings: the app's own preferences. */
export interface DesktopSettings {
  /** Stop running containers when the app quits; off keeps them running (svcd re-attaches). */
  stopContainersOnQuit: boolean;
}

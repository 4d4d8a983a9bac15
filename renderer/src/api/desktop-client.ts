// The gateway's own API: supervisor state, the servers' logs, restart.
import { getJson, request, sendJson, withToken } from './gateway';

export type ServiceStatus = 'starting' | 'up' | 'restarting' | 'down' | 'failed';

export interface ServiceState {
  name: string;
  status: ServiceStatus;
  reason?: string;
  pid?: number;
  adopted: boolean;
  restarts: number;
  since: number;
  logFile: string;
  endpoint: string;
}

export interface ProcUsage {
  pid: number;
  cpuSeconds: number;
  rssBytes: number;
}

export interface DesktopState {
  services: ServiceState[];
  usage: Record<string, ProcUsage | undefined>;
}

export const desktop = {
  state: () => getJson<DesktopState>('/api/state'),
  stateStreamUrl: () => withToken('/api/state/stream'),
  logTail: async (name: string, bytes: number) =>
    (await request(`/api/services/${encodeURIComponent(name)}/log?tail=${bytes}`)).text(),
  logDownloadUrl: (name: string) => withToken(`/api/services/${encodeURIComponent(name)}/log`),
  restart: (name: string) => request(`/api/services/${encodeURIComponent(name)}/restart`, { method: 'POST' }),
};

export interface DesktopSettings {
  stopContainersOnQuit: boolean;
}

export const desktopSettings = {
  read: () => getJson<DesktopSettings>('/api/settings'),
  update: (patch: Partial<DesktopSettings>) => sendJson<DesktopSettings>('PUT', '/api/settings', patch),
};

// The gateway's own API: supervisor state, the servers' logs, restart.
import type {
  DesktopSettings,
  DesktopState,
  EngineChoice,
  EngineModePreference,
} from '../../../daemon/api/desktop-types';
import { getJson, request, sendJson, withToken } from './gateway';

export type { ProcUsage, ServiceState } from '../../../daemon/api/desktop-types';

export const desktop = {
  state: () => getJson<DesktopState>('/api/state'),
  stateStreamUrl: () => withToken('/api/state/stream'),
  logTail: async (name: string, bytes: number) =>
    (await request(`/api/services/${encodeURIComponent(name)}/log?tail=${bytes}`)).text(),
  logDownloadUrl: (name: string) => withToken(`/api/services/${encodeURIComponent(name)}/log`),
  restart: (name: string) => request(`/api/services/${encodeURIComponent(name)}/restart`, { method: 'POST' }),
};

export const desktopSettings = {
  read: () => getJson<DesktopSettings>('/api/settings'),
  update: (patch: Partial<DesktopSettings>) => sendJson<DesktopSettings>('PUT', '/api/settings', patch),
};

export const engineMode = {
  read: () => getJson<EngineChoice>('/api/engine-mode'),
  select: (preference: EngineModePreference) =>
    sendJson<EngineChoice>('PUT', '/api/engine-mode', { preference }),
};

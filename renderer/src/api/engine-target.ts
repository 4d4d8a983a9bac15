// Which engine the screens talk to: the embedded svcd (/engine) or one added in Settings
// (/engines/{id}, proxied by the gateway). Kept across reloads; the engine client reads it at
// each call, so every screen follows the switch.
import { create } from 'zustand';

export const EMBEDDED_ENGINE = 'local';
const storageKey = 'svc-desktop.engine';

export const useEngineTarget = create<{ id: string }>(() => ({
  id: localStorage.getItem(storageKey) ?? EMBEDDED_ENGINE,
}));

useEngineTarget.subscribe(({ id }) => localStorage.setItem(storageKey, id));

/** The gateway prefix of engine `id`. */
export function enginePrefix(id: string): string {
  return id === EMBEDDED_ENGINE ? '/engine' : `/engines/${encodeURIComponent(id)}`;
}

/** The prefix of the engine the screens use now. */
export const E = (): string => enginePrefix(useEngineTarget.getState().id);

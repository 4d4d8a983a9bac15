// UI state of the events timeline: which types to show, and whether the app's own saves.
import { create } from 'zustand';

export const EVENT_TYPES = ['container', 'image', 'volume', 'network', 'daemon'];

export const useEventsUi = create<{
  type: string;
  setType(t: string): void;
  showOwn: boolean;
  setShowOwn(v: boolean): void;
}>((set) => ({
  type: '',
  setType: (type) => set({ type }),
  showOwn: false,
  setShowOwn: (showOwn) => set({ showOwn }),
}));

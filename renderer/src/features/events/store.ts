// UI state of the events timeline: which types to show.
import { create } from 'zustand';

export const EVENT_TYPES = ['container', 'image', 'volume', 'network', 'daemon'];

export const useEventsUi = create<{ type: string; setType(t: string): void }>((set) => ({
  type: '',
  setType: (type) => set({ type }),
}));

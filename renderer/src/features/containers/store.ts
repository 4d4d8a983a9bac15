// UI state of the containers screen: filters, search, selection, dialogs. No server data.
import { create } from 'zustand';

interface ContainersUi {
  showAll: boolean;
  search: string;
  label: string;
  selected: Set<string>;
  runOpen: boolean;
  setShowAll(v: boolean): void;
  setSearch(v: string): void;
  setLabel(v: string): void;
  toggle(id: string): void;
  selectOnly(ids: string[]): void;
  setRunOpen(v: boolean): void;
}

export const useContainersUi = create<ContainersUi>((set) => ({
  showAll: true,
  search: '',
  label: '',
  selected: new Set(),
  runOpen: false,
  setShowAll: (showAll) => set({ showAll }),
  setSearch: (search) => set({ search }),
  setLabel: (label) => set({ label }),
  toggle: (id) =>
    set((s) => {
      const selected = new Set(s.selected);
      if (selected.has(id)) selected.delete(id);
      else selected.add(id);
      return { selected };
    }),
  selectOnly: (ids) => set({ selected: new Set(ids) }),
  setRunOpen: (runOpen) => set({ runOpen }),
}));

const TRANSITION: Record<string, string> = {
  start: 'starting…',
  stop: 'stopping…',
  restart: 'restarting…',
  pause: 'pausing…',
  unpause: 'unpausing…',
  kill: 'killing…',
  remove: 'removing…',
};

/** Containers with an action under way, and what it is ("stopping…"): their buttons wait. */
export const usePending = create<{
  pending: Map<string, string>;
  begin(ids: string[], action: string): void;
  end(ids: string[]): void;
}>((set) => ({
  pending: new Map(),
  begin: (ids, action) =>
    set((s) => ({ pending: new Map([...s.pending, ...ids.map((id) => [id, TRANSITION[action]] as const)]) })),
  end: (ids) => set((s) => ({ pending: new Map([...s.pending].filter(([id]) => !ids.includes(id))) })),
}));

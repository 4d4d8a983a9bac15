// Which compose projects the containers list shows folded (kept while the app is open).
import { create } from 'zustand';

export const useFoldedProjects = create<{ folded: Set<string>; toggle(name: string): void }>((set) => ({
  folded: new Set(),
  toggle: (name) =>
    set((s) => {
      const folded = new Set(s.folded);
      if (!folded.delete(name)) folded.add(name);
      return { folded };
    }),
}));

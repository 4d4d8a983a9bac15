// UI state of the images screen: its search and its open dialog, which other screens (the
// volume browser, the command palette) open too.
import { create } from 'zustand';

export type ImageDialog =
  | { kind: 'pull' }
  | { kind: 'push'; name: string }
  | { kind: 'tag'; id: string }
  | { kind: 'load'; file?: File }
  | { kind: 'import' }
  | { kind: 'run'; image: string }
  /**
   * `last`: the name is the image's only one, so the image itself goes. `force`: after the
   * engine refused because containers use it; they lose their image.
   */
  | { kind: 'remove'; id: string; last: boolean; force?: boolean }
  | undefined;

export const useImagesUi = create<{
  search: string;
  dialog: ImageDialog;
  setSearch(v: string): void;
  open(d: ImageDialog): void;
}>((set) => ({
  search: '',
  dialog: undefined,
  setSearch: (search) => set({ search }),
  open: (dialog) => set({ dialog }),
}));

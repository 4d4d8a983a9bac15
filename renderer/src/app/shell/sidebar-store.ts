// Whether the sidebar is collapsed to its icons (more room on a small window); kept across
// launches, and shared by the sidebar's button and the command palette.
import { create } from 'zustand';

const collapsedKey = 'svc-desktop.sidebar-collapsed';

export const useSidebar = create<{ collapsed: boolean; toggle(): void }>((set) => ({
  collapsed: localStorage.getItem(collapsedKey) === '1',
  toggle: () => set((s) => ({ collapsed: !s.collapsed })),
}));

useSidebar.subscribe(({ collapsed }) => localStorage.setItem(collapsedKey, collapsed ? '1' : '0'));

/** The state on <html>, where the shell's grid reads it (the boot script sets it before paint). */
export function markSidebar(collapsed: boolean): void {
  document.documentElement.dataset.sidebar = collapsed ? 'collapsed' : 'open';
}

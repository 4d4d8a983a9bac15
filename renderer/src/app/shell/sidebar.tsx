// Sections, reachable by Tab and by Alt+1…8.
import { useEffect } from 'react';
import { navigate, SECTIONS, useRoute } from '../state/router';
import { EngineSwitcher } from '../../features/engines/components/engine-switcher';
import { EngineStatus } from './engine-status';
import { SidebarFrame } from './sidebar-frame';
import { markSidebar, useSidebar } from './sidebar-store';

export function Sidebar() {
  const section = useRoute((r) => r.section);
  // Collapsed, the sidebar keeps each section's icon.
  const { collapsed, toggle } = useSidebar();
  useEffect(() => {
    markSidebar(collapsed);
  }, [collapsed]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!e.altKey) return;
      const s = SECTIONS.find((x) => x.key === e.key);
      if (s) {
        e.preventDefault();
        navigate(s.id);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return (
    <SidebarFrame
      section={section}
      collapsed={collapsed}
      onToggle={toggle}
      switcher={<EngineSwitcher />}
      status={<EngineStatus />}
    />
  );
}

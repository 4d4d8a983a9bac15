// Sections, reachable by Tab and by Alt+1…8.
import { useEffect } from 'react';
import { navigate, SECTIONS, useRoute } from '../state/router';
import { EngineSwitcher } from '../../features/engines/components/engine-switcher';
import { EngineStatus } from './engine-status';
import { SECTION_ICONS } from './icons';
import { PanelLeftClose, PanelLeftOpen } from 'lucide-react';
import { useSidebar } from './sidebar-store';

export function Sidebar() {
  const section = useRoute((r) => r.section);
  // Collapsed, the sidebar keeps each section's icon.
  const { collapsed, toggle } = useSidebar();
  useEffect(() => {
    document.documentElement.dataset.sidebar = collapsed ? 'collapsed' : 'open';
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
    <nav className={`sidebar${collapsed ? ' collapsed' : ''}`} aria-label="Sections">
      <div className="brand">
        <span className="brand-name">Svc Desktop</span>
        <button
          className="collapse"
          aria-label={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
          aria-expanded={!collapsed}
          title={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
          onClick={toggle}
        >
          {collapsed ? <PanelLeftOpen size={16} aria-hidden /> : <PanelLeftClose size={16} aria-hidden />}
        </button>
      </div>
      <EngineSwitcher />
      <ul>
        {SECTIONS.map((s) => {
          const Icon = SECTION_ICONS[s.id];
          return (
            <li key={s.id}>
              <a
                href={`#/${s.id}`}
                aria-current={section === s.id ? 'page' : undefined}
                title={`${s.label} (Alt+${s.key})`}
              >
                <Icon size={18} aria-hidden />
                {collapsed ? <span className="sr-only">{s.label}</span> : s.label}
              </a>
            </li>
          );
        })}
      </ul>
      <EngineStatus />
    </nav>
  );
}

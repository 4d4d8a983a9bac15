// Sections, reachable by Tab and by Alt+1…8.
import { useEffect, useState } from 'react';
import { navigate, SECTIONS, useRoute } from './router';
import { EngineSwitcher } from '../features/engines/components/engine-switcher';
import { EngineStatus } from './engine-status';

const collapsedKey = 'svc-desktop.sidebar-collapsed';

export function Sidebar() {
  const section = useRoute((r) => r.section);
  // Collapsed, the sidebar keeps each section's initial: more room on a small window.
  const [collapsed, setCollapsed] = useState(() => localStorage.getItem(collapsedKey) === '1');
  useEffect(() => {
    localStorage.setItem(collapsedKey, collapsed ? '1' : '0');
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
          onClick={() => setCollapsed((c) => !c)}
        >
          {collapsed ? '»' : '«'}
        </button>
      </div>
      <EngineSwitcher />
      <ul>
        {SECTIONS.map((s) => (
          <li key={s.id}>
            <a
              href={`#/${s.id}`}
              aria-current={section === s.id ? 'page' : undefined}
              title={`${s.label} (Alt+${s.key})`}
            >
              {collapsed ? <abbr aria-label={s.label}>{s.label[0]}</abbr> : s.label}
            </a>
          </li>
        ))}
      </ul>
      <EngineStatus />
    </nav>
  );
}

// Sections, reachable by Tab and by Alt+1…7; collapsible to their initials (remembered), for
// narrow windows.
import { useEffect, useState } from 'react';
import { navigate, SECTIONS, useRoute } from './router';
import { EngineStatus } from './engine-status';

const COLLAPSED_KEY = 'svc-desktop.sidebar-collapsed';

export function Sidebar() {
  const section = useRoute((r) => r.section);
  const [collapsed, setCollapsed] = useState(() => localStorage.getItem(COLLAPSED_KEY) === '1');
  const toggle = () => {
    localStorage.setItem(COLLAPSED_KEY, collapsed ? '0' : '1');
    setCollapsed(!collapsed);
  };
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
        <button
          className="link"
          aria-label={collapsed ? 'Expand the sidebar' : 'Collapse the sidebar'}
          aria-expanded={!collapsed}
          onClick={toggle}
        >
          {collapsed ? '»' : '«'}
        </button>
        <span className="brand-name">Svc Desktop</span>
      </div>
      <ul>
        {SECTIONS.map((s) => (
          <li key={s.id}>
            <a
              href={`#/${s.id}`}
              aria-current={section === s.id ? 'page' : undefined}
              title={`${s.label} (Alt+${s.key})`}
              aria-label={s.label}
            >
              {collapsed ? s.label.slice(0, 2) : s.label}
            </a>
          </li>
        ))}
      </ul>
      <EngineStatus />
    </nav>
  );
}

// The sidebar's markup for a section and a collapsed state, without the stores: the app's sidebar
// fills it in, and the build prerenders it into index.html, painted before any script runs.
import type { ReactNode } from 'react';
import { PanelLeftClose, PanelLeftOpen } from 'lucide-react';
import { SECTIONS, type Section } from '../state/sections';
import { SECTION_ICONS } from './icons';

export interface SidebarFrameProps {
  section?: Section;
  collapsed: boolean;
  /** Absent in the prerendered shell: its button stays disabled until the app takes over. */
  onToggle?: () => void;
  switcher?: ReactNode;
  status?: ReactNode;
}

export function SidebarFrame({ section, collapsed, onToggle, switcher, status }: SidebarFrameProps) {
  return (
    <nav className={`sidebar${collapsed ? ' collapsed' : ''}`} aria-label="Sections">
      <div className="brand">
        <span className="brand-name">Svc Desktop</span>
        <button
          className="collapse"
          aria-label={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
          aria-expanded={!collapsed}
          title={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
          disabled={!onToggle}
          onClick={onToggle}
        >
          {collapsed ? <PanelLeftOpen size={16} aria-hidden /> : <PanelLeftClose size={16} aria-hidden />}
        </button>
      </div>
      {switcher}
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
      {status}
    </nav>
  );
}

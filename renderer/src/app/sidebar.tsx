// Sections, reachable by Tab and by Alt+1…7.
import { useEffect } from 'react';
import { navigate, SECTIONS, useRoute } from './router';
import { EngineStatus } from './engine-status';

export function Sidebar() {
  const section = useRoute((r) => r.section);
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
    <nav className="sidebar" aria-label="Sections">
      <div className="brand">Svc Desktop</div>
      <ul>
        {SECTIONS.map((s) => (
          <li key={s.id}>
            <a
              href={`#/${s.id}`}
              aria-current={section === s.id ? 'page' : undefined}
              title={`${s.label} (Alt+${s.key})`}
            >
              {s.label}
            </a>
          </li>
        ))}
      </ul>
      <EngineStatus />
    </nav>
  );
}

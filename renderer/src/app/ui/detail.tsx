// What every detail screen shares: the way back to its list with its title, its tabs (in the
// route, so reload and back keep them), and its fields with the raw JSON under them.
import type { KeyboardEvent, ReactNode } from 'react';
import { ChevronRight } from 'lucide-react';

export function Breadcrumb({ href, label, title }: { href: string; label: string; title: string }) {
  return (
    <>
      <a href={href}>{label}</a>
      <ChevronRight size={16} aria-hidden className="muted" />
      <h1 className="ellipsis" title={title}>
        {title}
      </h1>
    </>
  );
}

export function DetailTabs({
  tabs,
  current,
  href,
}: {
  tabs: readonly string[];
  current: string;
  href: (tab: string) => string;
}) {
  return (
    <div role="tablist" className="tabs" onKeyDown={tabKeys}>
      {tabs.map((t) => (
        <a key={t} role="tab" aria-selected={t === current} href={href(t)}>
          {t[0].toUpperCase() + t.slice(1)}
        </a>
      ))}
    </div>
  );
}

/** Left and Right (Home, End) move to the next tab and open it, as in any tab list. */
function tabKeys(e: KeyboardEvent<HTMLElement>): void {
  const tabs = [...e.currentTarget.querySelectorAll<HTMLAnchorElement>('[role=tab]')];
  const at = tabs.indexOf(e.target as HTMLAnchorElement);
  const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[e.key];
  if (at < 0 || to === undefined) return;
  e.preventDefault();
  const next = tabs[(to + tabs.length) % tabs.length];
  next.focus();
  next.click();
}

export function Fields({ fields, raw }: { fields: [string, ReactNode][]; raw: unknown }) {
  return (
    <div className="summary">
      <dl>
        {fields.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
      <details>
        <summary>Raw JSON</summary>
        <pre className="raw">{JSON.stringify(raw, null, 2)}</pre>
      </details>
    </div>
  );
}

// What an empty list shows instead of a blank panel: what is missing, and buttons that fix it.
import type { ReactNode } from 'react';
import type { LucideIcon } from 'lucide-react';

export function EmptyState({
  icon: Icon,
  title,
  children,
  actions,
  testId,
  tone = 'neutral',
}: {
  icon: LucideIcon;
  title: string;
  children?: ReactNode;
  actions?: ReactNode;
  testId?: string;
  /** "problem" when the list is empty because something is broken (the engine is down). */
  tone?: 'neutral' | 'problem';
}) {
  return (
    <div
      className={`empty-state empty-${tone}`}
      data-testid={testId}
      role={tone === 'problem' ? 'alert' : undefined}
    >
      <Icon size={32} aria-hidden className="empty-icon" />
      <h2>{title}</h2>
      {children ? <div className="empty-body">{children}</div> : null}
      {actions ? <div className="empty-actions">{actions}</div> : null}
    </div>
  );
}

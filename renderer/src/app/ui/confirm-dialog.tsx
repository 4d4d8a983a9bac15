// An in-app confirmation that names what a destructive action acts on (never the browser's
// confirm(), which names nothing and blocks the page).
import type { ReactNode } from 'react';
import { Dialog } from './dialog';

export function ConfirmDialog({
  title,
  action,
  onConfirm,
  onClose,
  children,
}: {
  title: string;
  /** The confirming button's label, e.g. "Remove". */
  action: string;
  onConfirm: () => void;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <Dialog title={title} onClose={onClose}>
      {children}
      <footer>
        <button onClick={onClose}>Cancel</button>
        <button className="danger" data-autofocus onClick={() => (onClose(), onConfirm())}>
          {action}
        </button>
      </footer>
    </Dialog>
  );
}

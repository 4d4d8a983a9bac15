// A modal dialog on the native <dialog> element: focus trapped, Escape closes, and focus goes
// back where it was when the dialog goes.
import { useLayoutEffect, useRef, type ReactNode } from 'react';
import { focusScreenHeading } from './screen-focus';

/**
 * Where focus goes when a dialog closes: the control that opened it or, when that is gone (the
 * row it stood on was removed), the screen's heading.
 */
function restoreFocus(opener: Element | null, dialog: HTMLDialogElement): void {
  // Focus already went somewhere (a palette command's field, another dialog): it stays there.
  const now = document.activeElement;
  if (document.querySelector('dialog[open]') || (now && now !== document.body && !dialog.contains(now)))
    return;
  if (opener instanceof HTMLElement && opener.isConnected && opener !== document.body) opener.focus();
  else focusScreenHeading();
}

export function Dialog({
  title,
  onClose,
  children,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // Layout effects: the cleanup runs while the dialog is still in the document (the browser
  // restores nothing for a dialog React removes while it is open).
  useLayoutEffect(() => {
    const d = ref.current!;
    const opener = document.activeElement;
    d.showModal();
    // React focuses an autoFocus control before the dialog shows (when it cannot take focus yet).
    d.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    return () => {
      d.close();
      // After the commit: the opener may be re-rendered (or removed) by the same change.
      setTimeout(() => restoreFocus(opener, d));
    };
  }, []);
  return (
    <dialog ref={ref} onCancel={onClose} aria-label={title} className="dialog">
      <h2>{title}</h2>
      {children}
    </dialog>
  );
}

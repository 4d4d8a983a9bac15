// A modal dialog on the native <dialog> element: focus trapped, Escape closes.
import { useEffect, useRef, type ReactNode } from 'react';

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
  useEffect(() => {
    const d = ref.current!;
    d.showModal();
    return () => d.close();
  }, []);
  return (
    <dialog ref={ref} onCancel={onClose} aria-label={title} className="dialog">
      <h2>{title}</h2>
      {children}
    </dialog>
  );
}

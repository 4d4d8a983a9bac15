// Toasts: one line when a long operation finishes or fails (pull, push, load, import, prune), in
// a corner that screen readers announce. Finished ones go after a few seconds; failures stay
// until dismissed, since their message is what the user acts on.
import { create } from 'zustand';

interface Toast {
  id: number;
  kind: 'done' | 'failed';
  text: string;
}

interface Toasts {
  toasts: Toast[];
  dismiss(id: number): void;
}

const useToasts = create<Toasts>((set) => ({
  toasts: [],
  dismiss: (id) => set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })),
}));

let next = 1;

export function toast(kind: Toast['kind'], text: string): void {
  const id = next++;
  useToasts.setState((s) => ({ toasts: [...s.toasts.slice(-4), { id, kind, text }] }));
  if (kind === 'done') setTimeout(() => useToasts.getState().dismiss(id), 6000);
}

export function Toaster() {
  const { toasts, dismiss } = useToasts();
  return (
    <div className="toasts" aria-live="polite" data-testid="toasts">
      {toasts.map((t) => (
        <div key={t.id} className={`toast ${t.kind}`} role={t.kind === 'failed' ? 'alert' : 'status'}>
          <span>{t.text}</span>
          <button aria-label="Dismiss" onClick={() => dismiss(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

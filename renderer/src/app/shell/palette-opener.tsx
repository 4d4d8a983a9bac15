// Ctrl+K (or Cmd+K) opens the command palette. The palette and every feature's entries load
// at its first opening, not with the first screen.
import { Suspense, useEffect, useState } from 'react';
import { lazyChunk } from '../ui/lazy-chunk';
import { ScreenBoundary } from '../ui/screen-boundary';

const Palette = lazyChunk(() => import('./command-palette').then((m) => m.Palette));

export function CommandPalette() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return open ? (
    <ScreenBoundary what="The command palette">
      <Suspense fallback={null}>
        <Palette onClose={() => setOpen(false)} />
      </Suspense>
    </ScreenBoundary>
  ) : null;
}

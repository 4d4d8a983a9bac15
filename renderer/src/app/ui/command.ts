// One entry of the command palette. Each feature lists its own (features/*/commands.ts); an entry
// that acts on one object names it ("Stop container web-1"), so typing the name finds it.
import type { QueryClient } from '@tanstack/react-query';
import type { LucideIcon } from 'lucide-react';

export interface Command {
  label: string;
  /** Shown on the right: the section's shortcut, the object's state, or its kind. */
  hint: string;
  icon: LucideIcon;
  run: () => void;
}

export function command(label: string, icon: LucideIcon, run: () => void, hint = 'action'): Command {
  return { label, hint, icon, run };
}

/**
 * The lists of this kind already cached, without duplicates; the palette fetches nothing. Lists
 * of other engines (the combined view's) are left out: their objects are not on this engine.
 */
export function cached<T>(qc: QueryClient, key: string, id: (t: T) => string): T[] {
  return qc
    .getQueriesData<T[]>({ queryKey: [key] })
    .filter(([k]) => !(k[1] as { combined?: boolean } | undefined)?.combined)
    .flatMap(([, d]) => (Array.isArray(d) ? d : []))
    .filter((c, i, all) => all.findIndex((x) => id(x) === id(c)) === i);
}

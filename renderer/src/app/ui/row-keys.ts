// Keys on a row of a list or table, from whichever of the row's controls has focus: Enter opens
// the row's object (from its checkbox, where Enter does nothing else), Delete asks to remove it,
// Up and Down move to the same control of the row above or below. Rows carry `data-row`.
import type { KeyboardEvent } from 'react';

const CONTROLS = 'a[href], button, input, select, textarea, [tabindex]';

function moveTo(row: HTMLElement, by: number, from: HTMLElement): void {
  const list = row.closest('tbody, .vlist');
  const rows = [...(list?.querySelectorAll<HTMLElement>('[data-row]') ?? [])];
  const next = rows[rows.indexOf(row) + by];
  if (!next) return;
  const at = [...row.querySelectorAll(CONTROLS)].indexOf(from);
  const there = [...next.querySelectorAll<HTMLElement>(CONTROLS)];
  // The same control, or the nearest one that can take focus (a row's Terminal is off when stopped).
  const enabled = (el: HTMLElement) => !(el as HTMLButtonElement).disabled;
  const target =
    (there[at] && enabled(there[at]) ? there[at] : undefined) ??
    there.slice(at).find(enabled) ??
    there.slice(0, at).reverse().find(enabled);
  target?.focus();
}

export function rowKeys(actions: { open?: () => void; remove?: () => void }) {
  return (e: KeyboardEvent<HTMLElement>) => {
    const t = e.target as HTMLElement;
    // Typing in a field of the row is typing.
    if (t.matches('input:not([type=checkbox]), textarea, select') || e.altKey || e.ctrlKey || e.metaKey)
      return;
    if (e.key === 'Delete' && actions.remove) actions.remove();
    else if (e.key === 'Enter' && actions.open && t.matches('input[type=checkbox]')) actions.open();
    else if (e.key === 'ArrowDown' || e.key === 'ArrowUp')
      moveTo(e.currentTarget, e.key === 'ArrowDown' ? 1 : -1, t);
    else return;
    e.preventDefault();
  };
}

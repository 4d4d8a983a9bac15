// What the form dialogs of several screens read their text fields with, and how they report
// every problem at once.

/** Every problem the form has, one per wrong line or field. */
export class FormErrors extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

/** The non-blank lines, trimmed. */
export const lines = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** Splits a command line on spaces, keeping quoted parts together. */
export function splitCommand(s: string): string[] {
  return [...s.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** KEY=VALUE lines as a record; each other line is a problem named after `what`. */
export function keyValues(text: string, what: string, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of lines(text)) {
    const eq = l.indexOf('=');
    if (eq <= 0) problems.push(`${what} "${l}" is not KEY=VALUE`);
    else out[l.slice(0, eq)] = l.slice(eq + 1);
  }
  return out;
}

/** Aliases typed with commas or spaces between them. */
export const aliasList = (s: string) => s.split(/[\s,]+/).filter(Boolean);

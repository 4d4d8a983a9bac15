// The `filters` query every list, prune and events endpoint takes: the checks and matches they
// share, as Docker's filters package does them.
import { InvalidParameterError } from '../api/errors';
import type { Filters } from '../api/filters';

/** Refuses filter keys a resource does not know, as Docker does ("invalid filter 'x'"). */
export function checkFilterKeys(filters: Filters, allowed: readonly string[]): void {
  for (const key of filters.keys()) {
    if (!allowed.includes(key)) throw new InvalidParameterError(`invalid filter '${key}'`);
  }
}

/** A `label` filter value: `key` (the label is set) or `key=value` (set to that value). */
export function labelMatches(labels: Record<string, string>, wanted: string): boolean {
  const eq = wanted.indexOf('=');
  return eq < 0 ? wanted in labels : labels[wanted.slice(0, eq)] === wanted.slice(eq + 1);
}

// Query-string conventions of the Engine API: booleans, integers and the `filters` JSON map.
import { InvalidParameterError } from '../../api/errors';
import { parseJsonBounded } from '../../lib/json-bounded';
import type { Filters } from '../../api/filters';

/** Filters as a map from key to the list of values given for it. */
export type { Filters };

const falsy = new Set(['', '0', 'false', 'no', 'none']);

export class Query {
  constructor(readonly params: URLSearchParams) {}

  has(name: string): boolean {
    return this.params.has(name);
  }

  string(name: string): string | undefined {
    return this.params.get(name) ?? undefined;
  }

  /** `1`/`True`/`true` are true, `0`/`False`/`false` (and empty) false; absent gives the default. */
  bool(name: string, fallback = false): boolean {
    const v = this.params.get(name);
    if (v === null) return fallback;
    return !falsy.has(v.trim().toLowerCase());
  }

  int(name: string, fallback?: number): number | undefined {
    const v = this.params.get(name);
    if (v === null || v === '') return fallback;
    if (!/^-?\d+$/.test(v))
      throw new InvalidParameterError(`invalid value for ${name}: ${JSON.stringify(v)}`);
    return Number(v);
  }

  /** All values of a repeated parameter (e.g. `names=a&names=b`). */
  all(name: string): string[] {
    return this.params.getAll(name);
  }

  filters(name = 'filters'): Filters {
    return parseFilters(this.params.get(name));
  }
}

/**
 * Parses `filters`: `{"key":["v1","v2"]}`, or the older `{"key":{"v1":true}}` form that clients
 * before API 1.22 still send.
 */
export function parseFilters(raw: string | null | undefined): Filters {
  const out: Filters = new Map();
  if (raw === null || raw === undefined || raw === '') return out;
  const parsed = parseJsonBounded(raw, 'filter');
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InvalidParameterError('invalid filter: expected a JSON object');
  }
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
      out.set(key, value as string[]);
    } else if (value && typeof value === 'object' && !Array.isArray(value)) {
      out.set(
        key,
        Object.entries(value as Record<string, unknown>)
          .filter(([, on]) => on === true)
          .map(([v]) => v),
      );
    } else {
      throw new InvalidParameterError(`invalid filter '${key}': expected a list of strings`);
    }
  }
  return out;
}

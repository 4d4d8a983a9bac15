// Filters of GET /images/json and POST /images/prune: dangling, label, before, since, reference,
// until — each a predicate over stored images, as Docker applies them.
import { InvalidParameterError } from '../../api/errors';
import { familiarName, familiarString } from '../shared/reference';
import type { StoredImage } from './image-store';
import { checkFilterKeys, labelMatches } from '../../lib/filters';
import type { Filters } from '../../api/filters';

type Predicate = (image: StoredImage) => boolean;

const created = (image: StoredImage) => Date.parse(image.config.created ?? '') || 0;

/** path.Match-style glob (`*` and `?` stop at `/`), anchored. */
function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) throw new InvalidParameterError(`invalid reference filter: ${pattern}`);
      source += `[${pattern
        .slice(i + 1, end)
        .replace(/^!/, '^')
        .replace(/\\/g, '\\\\')}]`;
      i = end;
    } else source += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

export function isDangling(image: StoredImage): boolean {
  return image.names.length === 0;
}

/** `label=key` or `label=key=value`, `!=` negating (prune's form). */
export function labelPredicate(spec: string): Predicate {
  // `key!=value` as well: the label is not set to that value.
  const negated = spec.includes('!=');
  const wanted = negated ? spec.replace('!=', '=') : spec;
  return (image) => labelMatches(image.config.config?.Labels ?? {}, wanted) !== negated;
}

function timestampOf(value: string): number {
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) {
    const m = /^(\d+)(s|m|h)$/.exec(value);
    if (!m) throw new InvalidParameterError(`invalid value for until: ${value}`);
    return Date.now() - Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 's' | 'm' | 'h'];
  }
  return ms;
}

/**
 * The predicate of a filter set. `lookup` finds the image named by before/since.
 * `keys` are the filter names this endpoint accepts.
 */
export async function imagePredicate(
  filters: Filters,
  keys: readonly string[],
  lookup: (ref: string) => Promise<StoredImage>,
): Promise<Predicate> {
  const predicates: Predicate[] = [];
  checkFilterKeys(filters, keys);
  for (const [key, values] of filters) {
    if (values.length === 0) continue;
    switch (key) {
      case 'dangling': {
        const value = values[0].toLowerCase();
        if (!['true', 'false', '1', '0'].includes(value)) {
          throw new InvalidParameterError(`Invalid filter 'dangling=${values[0]}'`);
        }
        const want = value === 'true' || value === '1';
        predicates.push((image) => isDangling(image) === want);
        break;
      }
      case 'label': {
        const labels = values.map(labelPredicate);
        predicates.push((image) => labels.every((p) => p(image)));
        break;
      }
      case 'before':
      case 'since': {
        const pivot = created(await lookup(values[0]));
        predicates.push((image) => (key === 'before' ? created(image) < pivot : created(image) > pivot));
        break;
      }
      case 'until': {
        const limit = timestampOf(values[0]);
        predicates.push((image) => created(image) < limit);
        break;
      }
      case 'reference': {
        const patterns = values.map(globToRegExp);
        predicates.push((image) =>
          image.names.some((n) =>
            patterns.some((p) => p.test(familiarString(n)) || (!!n.tag && p.test(familiarName(n)))),
          ),
        );
        break;
      }
    }
  }
  return (image) => predicates.every((p) => p(image));
}

// Lexical pagination shared by the catalog and tag lists: `n` entries after `last`, capped by
// the server, with `Link: <path?n=N&last=X>; rel="next"` when more remain.
import { RegistryError } from '../api/error-codes';

export interface Page {
  entries: string[];
  link?: string;
}

export function paginate(sorted: string[], url: URL, cap: number): Page {
  const nParam = url.searchParams.get('n');
  let n = cap;
  if (nParam !== null && nParam !== '') {
    if (!/^\d+$/.test(nParam)) {
      throw new RegistryError('PAGINATION_NUMBER_INVALID', undefined, { n: nParam });
    }
    n = Math.min(Number(nParam), cap);
  }
  const last = url.searchParams.get('last');
  const start = last ? sorted.findIndex((entry) => entry > last) : 0;
  const rest = start < 0 ? [] : sorted.slice(start);
  const entries = rest.slice(0, n);
  if (n === 0 || rest.length <= n) return { entries };
  const next = `${url.pathname}?n=${n}&last=${encodeURIComponent(entries[entries.length - 1])}`;
  return { entries, link: `<${next}>; rel="next"` };
}

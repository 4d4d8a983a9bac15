// Durations written as Go writes them (`30s`, `1m30s`, `1.5h`, `250ms`), as the instructions
// file's HEALTHCHECK flags take them, in nanoseconds.

const unitNs: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** Nanoseconds, or undefined when `text` is not a Go duration. */
export function parseGoDuration(text: string): number | undefined {
  const m = /^([-+]?)(.*)$/.exec(text)!;
  let rest = m[2];
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let total = 0;
  while (rest !== '') {
    const part = /^(\d*(?:\.\d*)?)([a-zµμ]+)/.exec(rest);
    if (!part || part[1] === '' || part[1] === '.' || unitNs[part[2]] === undefined) return undefined;
    total += Number(part[1]) * unitNs[part[2]];
    rest = rest.slice(part[0].length);
  }
  return Math.round(m[1] === '-' ? -total : total);
}

// Hostile input for the fuzz suites of svcd and svc-registry: a small seeded PRNG (so a failure
// is reproduced by its seed) and generators of the values clients should never send: malformed
// and deeply nested JSON, wrong types, huge numbers and strings, invalid names, references and
// digests, unknown query parameters. Nothing here knows a route; the suites say where each goes.

/** encodeURIComponent, with a lone surrogate (which it refuses) sent as U+FFFD. */
export function encodeAny(value: string): string {
  return encodeURIComponent(Buffer.from(value, 'utf8').toString('utf8'));
}

/** mulberry32: 32 bits of state, good enough to spread test cases, and the same on every run. */
export class Prng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(below: number): number {
    return Math.floor(this.next() * below);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

const hugeNumbers = [
  1e308,
  -1e308,
  2 ** 63,
  -(2 ** 63),
  2 ** 64 + 1,
  Number.MAX_SAFE_INTEGER + 2,
  -1,
  0.5,
  -0.0001,
];

/** Strings that break parsers, paths and names: escapes, controls, unicode, and huge ones. */
export function hostileString(rng: Prng): string {
  const pieces = [
    '',
    ' ',
    '../../../../etc/passwd',
    '/etc/shadow',
    '..',
    '.',
    '%2e%2e%2f',
    '%00',
    '\u0000',
    '\n\r\t',
    '\u202e\ufeff',
    '😀',
    '\ud800',
    'A'.repeat(70_000),
    'x'.repeat(256),
    'UPPER/Case',
    '-rf',
    ':',
    '@',
    'sha256:',
    `sha256:${'0'.repeat(63)}`,
    `sha256:${'g'.repeat(64)}`,
    '${HOME}',
    '$(id)',
    '`id`',
    '"\'\\',
    '{"a":',
    'null',
    'true',
    '9'.repeat(400),
    '-1',
    '1e309',
    'a//b',
    '/',
    '?x=1#frag',
  ];
  const n = 1 + rng.int(3);
  let s = '';
  for (let i = 0; i < n; i++) s += rng.pick(pieces);
  return s;
}

/** A JSON value of a random type, sometimes huge or nested. */
export function hostileValue(rng: Prng, depth = 0): unknown {
  switch (rng.int(depth > 3 ? 6 : 9)) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.pick(hugeNumbers);
    case 3:
    case 4:
      return hostileString(rng);
    case 5:
      return rng.int(100);
    case 6:
      return [hostileValue(rng, depth + 1), hostileValue(rng, depth + 1)];
    case 7:
      return { [hostileString(rng).slice(0, 40)]: hostileValue(rng, depth + 1) };
    default:
      // Own `__proto__` and `constructor` keys, as JSON.parse makes them.
      return JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}');
  }
}

/** `[[[...]]]` or `{"a":{"a":...}}` nested `depth` levels, as text (JSON.stringify would recurse). */
export function deepJson(depth: number, kind: 'array' | 'object' = 'array'): string {
  return kind === 'array'
    ? '['.repeat(depth) + ']'.repeat(depth)
    : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** Every property path of `value` (objects only), so a mutation can reach nested fields. */
function objectPaths(value: unknown, prefix: string[] = [], out: string[][] = []): string[][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const [k, v] of Object.entries(value)) {
    out.push([...prefix, k]);
    objectPaths(v, [...prefix, k], out);
  }
  return out;
}

/**
 * A JSON body derived from a plausible `base`: one field given a wrong type or a hostile value,
 * an unknown field, or the whole body replaced by malformed, truncated or deeply nested text.
 */
export function hostileJsonBody(rng: Prng, base: Record<string, unknown>): string {
  const text = JSON.stringify(base);
  switch (rng.int(10)) {
    case 0:
      return deepJson(rng.pick([100, 1000, 100_000]), rng.pick(['array', 'object'] as const));
    case 1:
      return text.slice(0, rng.int(text.length)); // truncated
    case 2:
      return rng.pick([
        '{',
        '}',
        '[1,]',
        '{"a" 1}',
        'nul',
        '"unterminated',
        '\u0000',
        '{"a":1}{"b":2}',
        'NaN',
      ]);
    case 3:
      return JSON.stringify(hostileValue(rng)); // a body of the wrong type altogether
    case 4: {
      const copy = structuredClone(base);
      copy[hostileString(rng).slice(0, 60)] = hostileValue(rng); // an unknown field
      return JSON.stringify(copy);
    }
    default: {
      // One known field, maybe nested, gets a wrong type or a hostile value.
      const copy = structuredClone(base);
      const paths = objectPaths(copy);
      if (paths.length === 0) return JSON.stringify(hostileValue(rng));
      const path = rng.pick(paths);
      let target = copy as Record<string, unknown>;
      for (const k of path.slice(0, -1)) target = target[k] as Record<string, unknown>;
      target[path.at(-1)!] = hostileValue(rng);
      return JSON.stringify(copy);
    }
  }
}

/**
 * A query string: the route's `known` parameters, some given hostile values, plus sometimes an
 * unknown parameter, a repeated one or a broken escape. `fixed` parameters (those that would
 * make the server contact a registry) are always sent exactly as given.
 */
export function hostileQuery(
  rng: Prng,
  known: readonly string[],
  fixed: Record<string, string> = {},
): string {
  const parts: string[] = [];
  const add = (k: string, v: string) => parts.push(`${encodeAny(k)}=${encodeAny(v)}`);
  for (const k of known) {
    if (k in fixed || !rng.chance(0.5)) continue;
    add(k, rng.chance(0.3) ? JSON.stringify(hostileValue(rng)) : hostileString(rng));
    if (rng.chance(0.1)) add(k, hostileString(rng)); // repeated
  }
  for (const [k, v] of Object.entries(fixed)) add(k, v);
  if (rng.chance(0.3)) add(`fuzz_${rng.int(1000)}`, hostileString(rng)); // unknown
  if (rng.chance(0.1)) parts.push(rng.pick(['%', '%zz=1', '=', '&&', 'a=%E0%A4%A']));
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

/** A path segment: an id, name, reference or digest a route would take, or garbage of its kind. */
export function hostileSegment(rng: Prng, valid: readonly string[] = []): string {
  if (valid.length > 0 && rng.chance(0.3)) return encodeAny(rng.pick(valid));
  const raw = rng.pick([
    hostileString(rng),
    `sha256:${'a'.repeat(rng.int(80))}`,
    `sha512:${'0'.repeat(128)}`,
    `md5:${'0'.repeat(32)}`,
    'x'.repeat(rng.pick([1, 129, 256, 5000])),
    '-',
    '_',
    'a..b',
    'a__b',
  ]);
  // Sometimes unencoded, so `..` and `/` reach the router as they are.
  return rng.chance(0.2) ? raw.replace(/[^\x21-\x7e]|[?#%]/g, '') || '_' : encodeAny(raw) || '_';
}

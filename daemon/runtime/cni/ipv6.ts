// IPv6 addresses and subnets as 128-bit numbers: parsing (with `::` and a dotted IPv4 tail),
// the canonical text form (RFC 5952), overlap and containment.
import { isIPv6 } from 'node:net';
import { InvalidParameterError } from '../../api/errors';

export interface Subnet6 {
  base: bigint;
  prefix: number;
}

const bits = 128n;

export function parseIp6(text: string): bigint {
  if (!isIPv6(text) || text.includes('%')) throw new InvalidParameterError(`invalid IPv6 address: ${text}`);
  let groups = text;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(groups);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    groups = `${groups.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = groups.split('::');
  const parts = (s: string | undefined) => (s ? s.split(':') : []);
  const left = parts(head);
  const right = parts(tail);
  const all =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return all.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

export function formatIp6(n: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((n >> BigInt(112 - 16 * i)) & 0xffffn));
  // The longest run of two or more zero groups becomes `::` (the first such run on a tie).
  let best = { at: -1, len: 1 };
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.len) best = { at: i, len: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.at < 0) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.len).join(':')}`;
}

export function parseSubnet6(text: string): Subnet6 {
  const m = /^([0-9a-fA-F:.]+)\/(\d{1,3})$/.exec(text);
  if (!m || Number(m[2]) > 128) throw new InvalidParameterError(`invalid subnet: ${text}`);
  const prefix = Number(m[2]);
  const size = 1n << (bits - BigInt(prefix));
  const ip = parseIp6(m[1]);
  return { base: ip - (ip % size), prefix };
}

export function formatSubnet6(s: Subnet6): string {
  return `${formatIp6(s.base)}/${s.prefix}`;
}

export function subnetSize6(s: Subnet6): bigint {
  return 1n << (bits - BigInt(s.prefix));
}

export function overlaps6(a: Subnet6, b: Subnet6): boolean {
  return a.base < b.base + subnetSize6(b) && b.base < a.base + subnetSize6(a);
}

export function contains6(s: Subnet6, ip: bigint): boolean {
  return ip >= s.base && ip < s.base + subnetSize6(s);
}

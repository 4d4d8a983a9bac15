// IPv4 subnets as numbers: parsing, overlap, and the addresses a bridge network uses.
import { InvalidParameterError } from '../../api/errors';

export interface Subnet {
  base: number;
  prefix: number;
}

export function parseIp(text: string): number {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255))
    throw new InvalidParameterError(`invalid IPv4 address: ${text}`);
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

export function formatIp(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

export function parseSubnet(text: string): Subnet {
  const m = /^([\d.]+)\/(\d{1,2})$/.exec(text);
  if (!m || Number(m[2]) > 32) throw new InvalidParameterError(`invalid subnet: ${text}`);
  const prefix = Number(m[2]);
  const size = 2 ** (32 - prefix);
  return { base: parseIp(m[1]) - (parseIp(m[1]) % size), prefix };
}

export function formatSubnet(s: Subnet): string {
  return `${formatIp(s.base)}/${s.prefix}`;
}

export function subnetSize(s: Subnet): number {
  return 2 ** (32 - s.prefix);
}

export function overlaps(a: Subnet, b: Subnet): boolean {
  return a.base < b.base + subnetSize(b) && b.base < a.base + subnetSize(a);
}

export function contains(s: Subnet, ip: number): boolean {
  return ip >= s.base && ip < s.base + subnetSize(s);
}

// The IPv6 side of a bridge network. Like dockerd (no default IPv6 pools), an `EnableIPv6`
// network takes the IPv6 subnet its IPAM config gives; the gateway (the subnet's first address
// unless given) and the range must fit it, and no two of this engine's networks share addresses.
import type { IpamConfig } from '../../api/network-types';
import { ForbiddenError, InvalidParameterError, NotFoundError } from '../../api/errors';
import {
  contains6,
  formatIp6,
  formatSubnet6,
  overlaps6,
  parseIp6,
  parseSubnet6,
  subnetSize6,
} from '../../runtime/cni/ipv6';

export interface Ipv6Addressing {
  Subnet6: string;
  Gateway6: string;
  /** The part of the subnet containers get addresses from, or '' for all of it. */
  IPRange6: string;
}

export const isIpv6Config = (c: IpamConfig): boolean => !!c.Subnet?.includes(':');

/** The addressing of a new IPv6 network, checked against the subnets `taken` by the others. */
export function ipv6Addressing(given: IpamConfig[], taken: string[]): Ipv6Addressing {
  const config = given.find(isIpv6Config);
  if (!config?.Subnet)
    throw new NotFoundError(
      'could not find an available, non-overlapping IPv6 address pool among the defaults to assign to the network',
    );
  const subnet = parseSubnet6(config.Subnet);
  if (taken.some((t) => overlaps6(parseSubnet6(t), subnet)))
    throw new ForbiddenError('Pool overlaps with other one on this address space');
  const gateway = config.Gateway ? parseIp6(config.Gateway) : subnet.base + 1n;
  if (!contains6(subnet, gateway))
    throw new InvalidParameterError(`no matching subnet for gateway ${config.Gateway}`);
  let ipRange = '';
  if (config.IPRange) {
    const range = parseSubnet6(config.IPRange);
    if (!overlaps6(subnet, range))
      throw new InvalidParameterError(`no matching subnet for range ${config.IPRange}`);
    ipRange = formatSubnet6(range);
  }
  return { Subnet6: formatSubnet6(subnet), Gateway6: formatIp6(gateway), IPRange6: ipRange };
}

/** host-local's IPv6 range: the subnet, its IP range, or the one address a container asked for. */
export function ipv6Range(a: Ipv6Addressing, staticIp?: string): Record<string, string> {
  const range: Record<string, string> = { subnet: a.Subnet6, gateway: a.Gateway6 };
  if (staticIp) {
    range.rangeStart = range.rangeEnd = formatIp6(parseIp6(staticIp));
  } else if (a.IPRange6) {
    const r = parseSubnet6(a.IPRange6);
    // The subnet's first address is its router anycast address, never a container's.
    range.rangeStart = formatIp6(r.base + (r.base === parseSubnet6(a.Subnet6).base ? 1n : 0n));
    range.rangeEnd = formatIp6(r.base + subnetSize6(r) - 1n);
  }
  return range;
}

/** A container's own IPv6 address on the network: valid, and inside its subnet. */
export function checkIpv6Address(a: Ipv6Addressing, ip: string): void {
  if (!contains6(parseSubnet6(a.Subnet6), parseIp6(ip)))
    throw new InvalidParameterError(
      `Invalid address ${ip}: It does not belong to any of this network's subnets`,
    );
}

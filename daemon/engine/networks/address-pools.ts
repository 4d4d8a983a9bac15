// A bridge network's addresses: the IPv4 subnet (given, configured with `bip`, or the first free
// one of the pools), its gateway and range, and the IPv6 ones when asked; never a subnet another
// of svcd's networks has or the host routes.
import { ForbiddenError, InvalidParameterError } from '../../api/errors';
import type { IpamConfig } from '../../api/network-types';
import { routedSubnets } from '../../runtime/cni/host-routes';
import {
  formatIp,
  formatSubnet,
  overlaps,
  parseSubnet,
  subnetSize,
  type Subnet,
} from '../../runtime/cni/ipv4';
import { ipv6Addressing, type Ipv6Addressing } from './ipv6-subnets';
import type { NetworkRecords } from './network-records';

/** Docker's default pools: 172.17–31.0.0/16, then 192.168.0.0/16 in /20s. */
export const defaultAddressPools = [
  { base: '172.17.0.0/16', size: 16 },
  { base: '172.18.0.0/15', size: 16 },
  { base: '172.20.0.0/14', size: 16 },
  { base: '172.24.0.0/13', size: 16 },
  { base: '192.168.0.0/16', size: 20 },
];

/** What a bridge network is given of addresses. */
export interface BridgeAddressing {
  subnet: string;
  gateway: string;
  ipRange: string;
  v6?: Ipv6Addressing;
  /** The subnet was picked from the pools: it may move while no endpoint uses it. */
  auto: boolean;
}

export class AddressPools {
  constructor(
    private readonly records: NetworkRecords,
    /** Docker's default-address-pools: base and the size of each subnet taken from it. */
    private readonly pools: Array<{ base: string; size: number }>,
  ) {}

  /** The addresses of a new bridge network from its IPAM config (`ipam`: the default bridge's). */
  async addressing(given: IpamConfig[], ipam: string | undefined, ipv6: boolean): Promise<BridgeAddressing> {
    const v6 = ipv6
      ? ipv6Addressing(
          given,
          this.records.all().flatMap((n) => (n.Subnet6 ? [n.Subnet6] : [])),
        )
      : undefined;
    const v4 = given.find((c) => c.Subnet && !c.Subnet.includes(':'));
    const auto = !v4?.Subnet && !ipam;
    const chosen = v4?.Subnet
      ? await this.checkFree(parseSubnet(v4.Subnet))
      : ipam
        ? await this.checkFree(parseSubnet(ipam))
        : await this.freeSubnet();
    const subnet = formatSubnet(chosen);
    const gateway = v4?.Gateway ?? (ipam ? ipam.split('/')[0] : formatIp(chosen.base + 1));
    if (!overlaps(chosen, parseSubnet(`${gateway}/32`)))
      throw new InvalidParameterError(`no matching subnet for gateway ${gateway}`);
    let ipRange = '';
    if (v4?.IPRange) {
      const range = parseSubnet(v4.IPRange);
      if (!overlaps(chosen, range))
        throw new InvalidParameterError(`no matching subnet for range ${v4.IPRange}`);
      ipRange = formatSubnet(range);
    }
    return { subnet, gateway, ipRange, v6, auto };
  }

  private async taken(): Promise<Subnet[]> {
    const ours = this.records
      .all()
      .filter((n) => n.Subnet)
      .map((n) => parseSubnet(n.Subnet));
    return [...ours, ...(await routedSubnets()).map(parseSubnet)];
  }

  /** `wanted`, unless another of svcd's networks (not `except`) has a subnet overlapping it. */
  async checkFree(wanted: Subnet, except?: string): Promise<Subnet> {
    const mine = this.records
      .all()
      .find((n) => n.Id !== except && n.Subnet && overlaps(parseSubnet(n.Subnet), wanted));
    if (mine) throw new ForbiddenError(`Pool overlaps with other one on this address space`);
    return wanted;
  }

  /** The first subnet of the pools that neither svcd's networks nor the host's routes use. */
  async freeSubnet(): Promise<Subnet> {
    const taken = await this.taken();
    for (const pool of this.pools) {
      const range = parseSubnet(pool.base);
      const step = 2 ** (32 - pool.size);
      for (let base = range.base; base < range.base + subnetSize(range); base += step) {
        const candidate = { base, prefix: pool.size };
        if (!taken.some((t) => overlaps(t, candidate))) return candidate;
      }
    }
    throw new ForbiddenError(
      'could not find an available, non-overlapping IPv4 address pool among the defaults to assign to the network',
    );
  }
}

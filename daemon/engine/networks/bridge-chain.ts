// The CNI plugin chain of a bridge network's endpoint: the bridge plugin with host-local
// addresses (an IPv4 range, and an IPv6 one on an IPv6 network), then portmap where it publishes
// ports.
import { formatIp, parseSubnet, subnetSize } from '../../runtime/cni/ipv4';
import { ipv6Range, type Ipv6Addressing } from './ipv6-subnets';
import type { NetworkRecord } from './network-records';

export const mtuOption = 'com.docker.network.driver.mtu';
export const masqOption = 'com.docker.network.bridge.enable_ip_masquerade';

export interface CniChain {
  name: string;
  cniVersion: string;
  plugins: Array<Record<string, unknown> & { type: string }>;
}

/**
 * The CNI chain of a bridge network for one container: bridge with host-local, then portmap when
 * `publishes` (an endpoint without published ports has no rules for it to make or remove, and
 * each of its runs is a process: about 4 ms at ADD, and its DEL lists the NAT chains with
 * iptables). The chain is recorded with the endpoint, so its DEL runs the same plugins.
 */
export function bridgeChain(
  record: NetworkRecord,
  /** host-local's leases: this engine's own. */
  ipamDir: string,
  publishes: boolean,
  staticIp: { IPv4Address?: string; IPv6Address?: string } = {},
): CniChain {
  const range: Record<string, string> = { subnet: record.Subnet, gateway: record.Gateway };
  if (record.IPRange) {
    const r = parseSubnet(record.IPRange);
    range.rangeStart = formatIp(r.base + (r.base === parseSubnet(record.Subnet).base ? 2 : 0));
    range.rangeEnd = formatIp(r.base + subnetSize(r) - 2);
  }
  if (staticIp.IPv4Address) {
    range.rangeStart = staticIp.IPv4Address;
    range.rangeEnd = staticIp.IPv4Address;
  }
  const v6 = record.Subnet6 ? ipv6Range(record as Ipv6Addressing, staticIp.IPv6Address) : undefined;
  const mtu = Number(record.Options[mtuOption] ?? 0);
  return {
    name: record.Id,
    cniVersion: '1.0.0',
    plugins: [
      {
        type: 'bridge',
        bridge: record.Bridge,
        // The gateway address is on the bridge even for internal networks (their name server
        // listens there); internal ones get no default route instead.
        isGateway: true,
        // One rule per network masquerades instead (bridge-masquerade.ts, made with the bridge).
        ipMasq: false,
        hairpinMode: true,
        // The address a container asks for (MacAddress) comes as runtime config.
        capabilities: { mac: true },
        ...(mtu ? { mtu } : {}),
        ipam: {
          type: 'host-local',
          ranges: v6 ? [[range], [v6]] : [[range]],
          routes: record.Internal ? [] : [{ dst: '0.0.0.0/0' }, ...(v6 ? [{ dst: '::/0' }] : [])],
          dataDir: ipamDir,
        },
      },
      ...(record.Internal || !publishes
        ? []
        : [{ type: 'portmap', capabilities: { portMappings: true }, snat: true }]),
    ],
  };
}

// EndpointSettings checked at create, before anything is made: a static address must fit the network.
import type { EndpointSettings } from '../../api/container-types';
import { InvalidParameterError } from '../../api/errors';
import { overlaps, parseIp, parseSubnet } from '../../runtime/cni/ipv4';
import { parseIp6 } from '../../runtime/cni/ipv6';
import { checkIpv6Address, type Ipv6Addressing } from './ipv6-subnets';
import type { NetworkRecord } from './network-records';

export function checkEndpointSettings(
  record: NetworkRecord,
  settings: EndpointSettings | null | undefined,
): void {
  const ip = settings?.IPAMConfig?.IPv4Address;
  if (ip) {
    if (record.Builtin)
      throw new InvalidParameterError('user specified IP address is supported on user defined networks only');
    if (!overlaps(parseSubnet(record.Subnet), { base: parseIp(ip), prefix: 32 }))
      throw new InvalidParameterError(`no configured subnet or ip-range contain the IP address ${ip}`);
  }
  const ip6 = settings?.IPAMConfig?.IPv6Address;
  if (ip6) {
    if (record.Builtin)
      throw new InvalidParameterError('user specified IP address is supported on user defined networks only');
    // As dockerd: an address for a network without IPv6 is valid but unused.
    if (record.Subnet6) checkIpv6Address(record as Ipv6Addressing, ip6);
    else parseIp6(ip6);
  }
}

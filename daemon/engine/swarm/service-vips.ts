// Endpoint mode vip: each service has one address on each of its networks (VirtualIPs, as
// dockerd shows them), which the name server answers for the service's name and aliases, and
// which reaches the service's running tasks there. dnsrr services have none: their name is
// every task's address, as `tasks.<service>` is in both modes.
import type { KnownName } from '../../runtime/dns/name-server';
import type { SwarmService } from '../../api/swarm-types';
import type { ClusterState } from './cluster-state';

/** What the swarm needs of the networks engine for virtual IPs. */
export interface VipPort {
  /** A free address of the network's subnet, held for `owner`, as `ip/prefix`. */
  reserve(networkId: string, owner: string): Promise<string>;
  release(networkId: string, addr: string, owner: string): Promise<void>;
  /** Routes each VIP to its backends, and takes away the routes no longer listed. */
  route(table: VipTable): Promise<void>;
}

export type VipTable = Array<{ networkId: string; vip: string; backends: string[] }>;

const ownerOf = (service: SwarmService) => `svcd-vip-${service.ID}`;

export const usesVip = (service: SwarmService) => (service.Spec.EndpointSpec?.Mode ?? 'vip') === 'vip';

/** The networks a service's tasks join (TaskTemplate.Networks, resolved to IDs). */
export const serviceNetworks = (service: SwarmService) =>
  (service.Spec.TaskTemplate?.Networks ?? []).map((n) => n.Target);

/**
 * Gives the service a VIP on each of its networks (keeping those it had) and releases the
 * others; none at all in dnsrr mode.
 */
export async function assignVips(
  port: VipPort,
  service: SwarmService,
  previous: SwarmService['Endpoint']['VirtualIPs'] = [],
): Promise<void> {
  const wanted = usesVip(service) ? serviceNetworks(service) : [];
  const vips: NonNullable<SwarmService['Endpoint']['VirtualIPs']> = [];
  for (const networkId of wanted) {
    const kept = previous.find((v) => v.NetworkID === networkId);
    vips.push(kept ?? { NetworkID: networkId, Addr: await port.reserve(networkId, ownerOf(service)) });
  }
  for (const old of previous.filter((v) => !wanted.includes(v.NetworkID)))
    await port.release(old.NetworkID, old.Addr, ownerOf(service));
  if (vips.length) service.Endpoint.VirtualIPs = vips;
  else delete service.Endpoint.VirtualIPs;
}

export async function releaseVips(port: VipPort, service: SwarmService): Promise<void> {
  for (const v of service.Endpoint.VirtualIPs ?? [])
    await port.release(v.NetworkID, v.Addr, ownerOf(service));
}

/** What a name is on a network for the swarm: a vip service's address, by name or alias. */
export function vipName(
  state: ClusterState | undefined,
  networkId: string,
  name: string,
): KnownName | undefined {
  const wanted = name.replace(/\.$/, '');
  for (const service of state?.services ?? []) {
    const vip = service.Endpoint.VirtualIPs?.find((v) => v.NetworkID === networkId);
    if (!vip) continue;
    const aliases =
      (service.Spec.TaskTemplate?.Networks ?? []).find((n) => n.Target === networkId)?.Aliases ?? [];
    if (service.Spec.Name === wanted || aliases.includes(wanted))
      return { v4: [vip.Addr.split('/')[0]], v6: [] };
  }
  return undefined;
}

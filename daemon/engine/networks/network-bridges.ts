// The Linux bridge of each bridge network, made (or checked) with the network's gateway, its
// outbound masquerade and its FORWARD rules before its first endpoint, isolated when its options
// say so, and removed with the network.
import { isolateBridge, releaseBridge } from '../../runtime/cni/bridge-isolation';
import { bridgeAddresses, deleteBridge, makeBridge } from '../../runtime/cni/bridge-device';
import { allowForwarding, releaseForwarding } from '../../runtime/cni/bridge-forward';
import { masqueradeBridge, releaseMasquerade } from '../../runtime/cni/bridge-masquerade';
import { ForbiddenError } from '../../api/errors';
import type { Logger } from '../../lib/logger';
import { routedSubnets } from '../../runtime/cni/host-routes';
import { formatIp, formatSubnet, overlaps, parseSubnet, type Subnet } from '../../runtime/cni/ipv4';
import type { ContainerUsage } from '../shared/container-usage';
import type { AddressPools } from './address-pools';
import { masqOption } from './bridge-chain';
import type { NetworkRecord, NetworkRecords } from './network-records';

export const iccOption = 'com.docker.network.bridge.enable_icc';

export class NetworkBridges {
  /** Bridges checked (or made) with their network's address by this process. */
  private readonly claimed = new Set<string>();

  constructor(
    private readonly records: NetworkRecords,
    private readonly pools: AddressPools,
    private readonly containers: Pick<ContainerUsage, 'networkMembers'>,
    private readonly log: Logger,
  ) {}

  /**
   * Before a bridge network's first endpoint: its bridge exists with the network's gateway. The
   * subnet was chosen when the network was made, and another engine on the host may have taken it
   * since; a subnet picked from the pools then moves (while no endpoint uses it), a given one is
   * refused, so two engines never share a subnet silently. A bridge already there with another
   * address is adopted where the subnet may move, as dockerd adopts docker0's.
   */
  async ensure(record: NetworkRecord): Promise<void> {
    if (record.Driver !== 'bridge' || this.claimed.has(record.Bridge)) return;
    await this.records.serial(async () => {
      const movable =
        !!record.AutoSubnet && !this.containers.networkMembers(record.Id).some((m) => m.endpoint);
      const own = `${record.Gateway}/${parseSubnet(record.Subnet).prefix}`;
      const present = await bridgeAddresses(record.Bridge);
      if (present === undefined) {
        const routed = (await routedSubnets(record.Bridge)).find((r) =>
          overlaps(parseSubnet(r), parseSubnet(record.Subnet)),
        );
        if (routed && !movable)
          throw new ForbiddenError(
            `network ${record.Name}: its subnet ${record.Subnet} overlaps ${routed}, which the host now routes (another engine's network?); remove the network and create it with another subnet`,
          );
        if (routed) await this.moveSubnet(record, await this.pools.freeSubnet());
        await makeBridge(record.Bridge, `${record.Gateway}/${parseSubnet(record.Subnet).prefix}`);
      } else if (present.length > 0 && !present.includes(own)) {
        if (!movable)
          throw new ForbiddenError(
            `network ${record.Name}: bridge ${record.Bridge} already has the address ${present[0]}, not the network's gateway ${own}; another engine uses this bridge name`,
          );
        const adopted = parseSubnet(present[0]);
        await this.pools.checkFree(adopted, record.Id);
        await this.moveSubnet(record, adopted, present[0].split('/')[0]);
      }
      if (!record.Internal && record.Options[masqOption] !== 'false') {
        for (const subnet of [record.Subnet, ...(record.Subnet6 ? [record.Subnet6] : [])])
          await masqueradeBridge({ networkId: record.Id, bridge: record.Bridge, subnet });
      }
      await allowForwarding({
        bridge: record.Bridge,
        internal: !!record.Internal,
        icc: record.Options[iccOption] !== 'false',
        families: record.Subnet6 ? ['ipv4', 'ipv6'] : ['ipv4'],
      });
      this.claimed.add(record.Bridge);
    });
  }

  /** The network takes another subnet: on disk first, then in the record its callers hold. */
  private async moveSubnet(record: NetworkRecord, subnet: Subnet, gateway = formatIp(subnet.base + 1)) {
    const Subnet = formatSubnet(subnet);
    await this.records.update(record, {
      Subnet,
      Gateway: gateway,
      IpamConfig: [{ Subnet, Gateway: gateway }],
    });
    this.log.info('network moved to a free subnet', { network: record.Name, subnet: Subnet });
  }

  /** The network's inter-container rule, when its options turn that traffic off. */
  async ensureIsolation(record: NetworkRecord): Promise<void> {
    if (record.Driver === 'bridge' && record.Options[iccOption] === 'false')
      await isolateBridge(record.Bridge);
  }

  /** The network is being removed: its rules and its bridge (made at the first attach) go. */
  async remove(record: NetworkRecord): Promise<void> {
    await releaseBridge(record.Bridge);
    await releaseForwarding(record.Bridge);
    await releaseMasquerade(record.Id);
    await deleteBridge(record.Bridge);
    this.claimed.delete(record.Bridge);
  }
}

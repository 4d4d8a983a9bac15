// Networks as Docker users know them, on CNI: the built-in bridge (svcd's own bridge, `svc0`
// unless configured), host and none, and user-defined bridge networks, each a Linux bridge run
// by the CNI bridge plugin with host-local addresses and portmap for published ports. A network
// is a JSON file under <data root>/networks (network-records.ts); IPAM leases and CNI state live
// under <data root>/cni, so two engines on different data roots never share anything but the
// kernel. Addresses come from address-pools.ts, bridges from network-bridges.ts, and each
// network's name server from network-resolvers.ts.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { bridgeAddresses } from '../../runtime/cni/bridge-device';
import type { EndpointSettings } from '../../api/container-types';
import { ConflictError, ForbiddenError, InvalidParameterError, NotFoundError } from '../../api/errors';
import type {
  IpamConfig,
  NetworkCreateBody,
  NetworkCreateResponse,
  NetworkFilters,
  NetworkPruneResponse,
  NetworkResource,
} from '../../api/network-types';
import type { Logger } from '../../lib/logger';
import { checkFilterKeys, labelMatches } from '../../lib/filters';
import type { EventsService } from '../events/events-service';
import type { ContainerUsage } from '../shared/container-usage';
import type { SwarmMembership } from '../shared/swarm-membership';
import { AddressPools, type BridgeAddressing } from './address-pools';
import { checkEndpointSettings } from './endpoint-check';
import { NetworkBridges, iccOption } from './network-bridges';
import { type NetworkRecord, NetworkRecords } from './network-records';
import { NetworkResolvers } from './network-resolvers';
import { listNetworks, networkView } from './network-views';
import { masqOption, mtuOption } from './bridge-chain';
import { isIpv6Config } from './ipv6-subnets';

export interface NetworksServiceDeps {
  dataRoot: string;
  events: EventsService;
  log: Logger;
  /** The default bridge's Linux name (`svc0`). */
  defaultBridge: string;
  /** Docker's default-address-pools: base and the size of each subnet taken from it. */
  pools: Array<{ base: string; size: number }>;
  /** `bip`: the default bridge's gateway address and prefix, when configured. */
  bip?: string;
  /** The containers on a network: its DNS names, and whether it is in use. */
  containers: Pick<ContainerUsage, 'networkMembers'>;
  /** The swarm: overlay networks exist only in one, and it names a service's VIP on its networks. */
  swarm: SwarmMembership;
}

const builtinNames = ['bridge', 'host', 'none'];
const bridgeOption = 'com.docker.network.bridge.name';

const isEmptyObject = (v: unknown) => typeof v === 'object' && Object.keys(v as object).length === 0;

function nowRfc3339(): string {
  return new Date().toISOString().replace(/Z$/, '000000Z');
}

export class NetworksService {
  private readonly records: NetworkRecords;
  private readonly pools: AddressPools;
  private readonly bridges: NetworkBridges;
  private readonly resolvers: NetworkResolvers;

  constructor(private readonly deps: NetworksServiceDeps) {
    this.records = new NetworkRecords(join(deps.dataRoot, 'networks'));
    this.pools = new AddressPools(this.records, deps.pools);
    this.bridges = new NetworkBridges(this.records, this.pools, deps.containers, deps.log);
    this.resolvers = new NetworkResolvers(deps.containers, deps.swarm);
  }

  /** CNI's state for this engine: host-local leases and results cached for DEL. */
  get cniDir(): string {
    return join(this.deps.dataRoot, 'cni');
  }

  /** Reads the networks on disk and makes the built-in ones that are missing. */
  async init(): Promise<void> {
    await this.records.load();
    // As dockerd with docker0: a default bridge already on the host (an earlier svcd's, on another
    // data root) keeps its address, which CNI's bridge plugin would otherwise refuse to change.
    const adopted = this.deps.bip ? undefined : (await bridgeAddresses(this.deps.defaultBridge))?.[0];
    for (const name of builtinNames) {
      if (this.records.all().some((n) => n.Builtin && n.Name === name)) continue;
      const record = await this.newRecord({
        Name: name,
        Driver: name === 'none' ? 'null' : name,
        Builtin: true,
        Bridge: name === 'bridge' ? this.deps.defaultBridge : '',
        Options:
          name === 'bridge'
            ? {
                'com.docker.network.bridge.default_bridge': 'true',
                [iccOption]: 'true',
                [masqOption]: 'true',
                'com.docker.network.bridge.host_binding_ipv4': '0.0.0.0',
                [bridgeOption]: this.deps.defaultBridge,
                [mtuOption]: '1500',
              }
            : {},
        ipam: name === 'bridge' ? (this.deps.bip ?? adopted) : undefined,
      });
      if (name === 'bridge' && !this.deps.bip) record.AutoSubnet = true;
      await this.records.save(record);
    }
  }

  private async newRecord(input: {
    Name: string;
    Driver: string;
    Builtin: boolean;
    Bridge: string;
    Options: Record<string, string>;
    ipam?: string;
    body?: NetworkCreateBody;
  }): Promise<NetworkRecord> {
    const id = randomBytes(32).toString('hex');
    // Echoed as dockerd does: the fields given, empty ones left out.
    const given = (input.body?.IPAM?.Config ?? []).map(
      (c) =>
        Object.fromEntries(
          Object.entries(c).filter(([, v]) => v !== null && v !== '' && !isEmptyObject(v)),
        ) as IpamConfig,
    );
    const addressing: BridgeAddressing | undefined =
      input.Driver === 'bridge'
        ? await this.pools.addressing(given, input.ipam, !!input.body?.EnableIPv6)
        : undefined;
    const { subnet, gateway, ipRange, v6, auto } = addressing ?? {
      subnet: '',
      gateway: '',
      ipRange: '',
      auto: false,
    };
    return {
      Id: id,
      Name: input.Name,
      Driver: input.Driver,
      Created: nowRfc3339(),
      Internal: !!input.body?.Internal,
      Attachable: !!input.body?.Attachable,
      EnableIPv6: !!v6,
      Subnet: subnet,
      Gateway: gateway,
      IPRange: ipRange,
      ...v6,
      // IPv4 first (the one chosen when only IPv6 ones were given), then IPv6, as dockerd keeps
      // them; the docker CLI sends them in any order.
      IpamConfig: [
        ...(subnet && given.every(isIpv6Config) ? [{ Subnet: subnet, Gateway: gateway }] : []),
        ...given.filter((c) => !isIpv6Config(c)),
        ...given.filter(isIpv6Config),
      ],
      IpamOptions: input.body?.IPAM?.Options ?? null,
      Options: input.Options,
      Labels: input.body?.Labels ?? {},
      Bridge: input.Bridge || (input.Driver === 'bridge' ? `svc-${id.slice(0, 11)}` : ''),
      Builtin: input.Builtin,
      ...(auto ? { AutoSubnet: true } : {}),
    };
  }

  /** A network by full ID, name, or unique ID prefix, as dockerd finds them. */
  get(ref: string): NetworkRecord {
    return this.records.get(ref);
  }

  async create(body: NetworkCreateBody): Promise<NetworkCreateResponse> {
    const name = body.Name ?? '';
    // Any other name is one dockerd takes (spaces included).
    if (!name) throw new InvalidParameterError('network name is empty');
    const driver = body.Driver || 'bridge';
    if (builtinNames.includes(name))
      throw new ForbiddenError(`${name} is a pre-defined network and cannot be created`);
    const overlay = driver === 'overlay';
    if (overlay && !this.deps.swarm.active())
      throw new ForbiddenError('overlay networks need swarm mode: this node is not a swarm manager');
    if (driver !== 'bridge' && driver !== 'default' && !overlay)
      throw new NotFoundError(`plugin "${driver}" not found: svcd has the bridge and overlay drivers only`);
    if (body.IPAM?.Driver && body.IPAM.Driver !== 'default')
      throw new NotFoundError(
        `plugin "${body.IPAM.Driver}" not found: svcd has the default IPAM driver only`,
      );
    // Options the bridge driver does not know are kept and shown, as dockerd does.
    const options = body.Options ?? {};
    return this.records.serial(async () => {
      if (this.records.all().some((n) => n.Name === name)) {
        throw new ConflictError(`network with name ${name} already exists`);
      }
      const record = await this.newRecord({
        Name: name,
        Driver: 'bridge',
        Builtin: false,
        Bridge: options[bridgeOption] ?? '',
        Options: options,
        body,
      });
      if (overlay) record.Overlay = { Ingress: !!body.Ingress };
      await this.records.save(record);
      this.deps.events.publish('network', 'create', {
        id: record.Id,
        attributes: { name, type: overlay ? 'overlay' : 'bridge' },
      });
      return { Id: record.Id, Warning: '' };
    });
  }

  view(record: NetworkRecord, withContainers: boolean): NetworkResource {
    return networkView(record, withContainers ? this.deps.containers.networkMembers(record.Id) : undefined);
  }

  inspect(ref: string): NetworkResource {
    return this.view(this.get(ref), true);
  }

  list(filters: NetworkFilters): NetworkResource[] {
    return listNetworks(this.records.all(), filters, this.deps.containers);
  }

  /** Before a bridge network's first endpoint: its bridge, with the network's gateway (network-bridges.ts). */
  ensureBridge(record: NetworkRecord): Promise<void> {
    return this.bridges.ensure(record);
  }

  /** The network's inter-container rule, when its options turn that traffic off. */
  ensureIsolation(record: NetworkRecord): Promise<void> {
    return this.bridges.ensureIsolation(record);
  }

  /** The network's name server on its gateway (network-resolvers.ts). */
  ensureResolver(record: NetworkRecord): Promise<void> {
    return this.resolvers.ensure(record);
  }

  /** After a restart: the name servers of networks whose containers kept running. */
  resumeResolvers(): Promise<void> {
    return this.resolvers.resume(this.records.all());
  }

  /** Stops every network's name server (svcd is stopping). */
  close(): Promise<void> {
    return this.resolvers.close();
  }

  private async destroy(record: NetworkRecord): Promise<void> {
    await this.resolvers.stop(record.Id);
    // What the network made on the host goes first and its record last: a removal cut short
    // leaves the network listed, to be removed again, never host state nothing names.
    await this.bridges.remove(record);
    await rm(join(this.cniDir, 'ipam', record.Id), { recursive: true, force: true });
    await this.records.delete(record.Id);
    this.deps.events.publish('network', 'destroy', {
      id: record.Id,
      attributes: { name: record.Name, type: record.Driver },
    });
  }

  async remove(ref: string): Promise<void> {
    await this.records.serial(async () => {
      const record = this.get(ref);
      if (record.Builtin)
        throw new ForbiddenError(`${record.Name} is a pre-defined network and cannot be removed`);
      const members = this.deps.containers.networkMembers(record.Id);
      if (members.length > 0) {
        throw new ForbiddenError(
          `error while removing network: network ${record.Name} id ${record.Id} has active endpoints`,
        );
      }
      await this.destroy(record);
    });
  }

  async prune(filters: NetworkFilters): Promise<NetworkPruneResponse> {
    checkFilterKeys(filters, ['label', 'label!', 'until']);
    const deleted: string[] = [];
    await this.records.serial(async () => {
      for (const n of this.records.all()) {
        if (n.Builtin || this.deps.containers.networkMembers(n.Id).length > 0) continue;
        if (!(filters.get('label') ?? []).every((l) => labelMatches(n.Labels, l))) continue;
        if ((filters.get('label!') ?? []).some((l) => labelMatches(n.Labels, l))) continue;
        await this.destroy(n);
        deleted.push(n.Name);
      }
    });
    this.deps.events.publish('network', 'prune', { id: '', attributes: { reclaimed: '0' } });
    return { NetworksDeleted: deleted.length ? deleted : null };
  }

  /** EndpointSettings at create: each network named must exist; a static address must fit it. */
  checkEndpoint(ref: string, settings: EndpointSettings | null | undefined): NetworkRecord {
    const record = this.get(ref);
    checkEndpointSettings(record, settings);
    return record;
  }
}

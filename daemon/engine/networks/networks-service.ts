// Networks as Docker users know them, on CNI: the built-in bridge (svcd's own bridge, `svc0`
// unless configured), host and none, and user-defined bridge networks, each a Linux bridge run
// by the CNI bridge plugin with host-local addresses and portmap for published ports. A network
// is a JSON file under <data root>/networks; IPAM leases and CNI state live under
// <data root>/cni, so two engines on different data roots never share anything but the kernel.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isolateBridge, releaseBridge } from '../../runtime/cni/bridge-isolation';
import { bridgeAddresses, deleteBridge, makeBridge } from '../../runtime/cni/bridge-device';
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
import { writeFileAtomic } from '../../lib/atomic-file';
import type { Logger } from '../../lib/logger';
import { checkFilterKeys, labelMatches } from '../../lib/filters';
import { routedSubnets } from '../../runtime/cni/host-routes';
import {
  formatIp,
  formatSubnet,
  overlaps,
  parseIp,
  parseSubnet,
  subnetSize,
  type Subnet,
} from '../../runtime/cni/ipv4';
import type { EventsService } from '../events/events-service';
import type { ContainerUsage } from '../shared/container-usage';
import { NetworkResolvers } from './network-resolvers';
import { listNetworks, networkView } from './network-views';
import type { KnownName } from '../../runtime/dns/name-server';
import { parseIp6 } from '../../runtime/cni/ipv6';
import { masqOption, mtuOption } from './bridge-chain';
import { checkIpv6Address, ipv6Addressing, isIpv6Config, type Ipv6Addressing } from './ipv6-subnets';

/** What svcd keeps of a network; the IPv6 fields are set when EnableIPv6 is. */
export interface NetworkRecord extends Partial<Ipv6Addressing> {
  Id: string;
  Name: string;
  /** bridge, host or null (none), as Docker names the drivers. */
  Driver: string;
  Created: string;
  Internal: boolean;
  Attachable: boolean;
  EnableIPv6: boolean;
  /** The subnet and gateway in use (bridge networks). */
  Subnet: string;
  Gateway: string;
  IPRange: string;
  /** IPAM.Config as the client gave it, echoed back by inspect. */
  IpamConfig: IpamConfig[];
  /** IPAM.Options as the client gave them: null when it gave none, as dockerd shows them. */
  IpamOptions?: Record<string, string> | null;
  Options: Record<string, string>;
  Labels: Record<string, string>;
  /** The Linux bridge (bridge networks). */
  Bridge: string;
  Builtin: boolean;
  /** The subnet was picked from the pools (not given): it may move while no endpoint uses it. */
  AutoSubnet?: boolean;
  /** A swarm-scope `overlay` network: on the one node it is a bridge network like the others. */
  Overlay?: { Ingress: boolean };
}

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
  /** Whether this engine is in a swarm (overlay networks exist only then). */
  swarmActive?: () => boolean;
  /** The containers on a network: its DNS names, and whether it is in use. */
  containers: Pick<ContainerUsage, 'networkMembers'>;
  /** Names the swarm answers for on a network before its members (a service's VIP). */
  swarmName?: (networkId: string, name: string) => KnownName | undefined;
}

/** Docker's default pools: 172.17–31.0.0/16, then 192.168.0.0/16 in /20s. */
export const defaultAddressPools = [
  { base: '172.17.0.0/16', size: 16 },
  { base: '172.18.0.0/15', size: 16 },
  { base: '172.20.0.0/14', size: 16 },
  { base: '172.24.0.0/13', size: 16 },
  { base: '192.168.0.0/16', size: 20 },
];

const builtinNames = ['bridge', 'host', 'none'];
const bridgeOption = 'com.docker.network.bridge.name';
const iccOption = 'com.docker.network.bridge.enable_icc';

const isEmptyObject = (v: unknown) => typeof v === 'object' && Object.keys(v as object).length === 0;

function nowRfc3339(): string {
  return new Date().toISOString().replace(/Z$/, '000000Z');
}

/** What a network's driver is to clients: overlay for the swarm's (bridges underneath). */

export class NetworksService {
  private readonly networks = new Map<string, NetworkRecord>();
  private readonly resolvers: NetworkResolvers;
  private queue: Promise<unknown> = Promise.resolve();
  /** Bridges checked (or made) with their network's address by this process. */
  private readonly claimedBridges = new Set<string>();

  constructor(private readonly deps: NetworksServiceDeps) {
    this.resolvers = new NetworkResolvers(deps.containers, deps.swarmName);
  }

  private get dir(): string {
    return join(this.deps.dataRoot, 'networks');
  }

  /** CNI's state for this engine: host-local leases and results cached for DEL. */
  get cniDir(): string {
    return join(this.deps.dataRoot, 'cni');
  }

  /** Runs network changes one at a time: names, subnets and bridges are decided against the others. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Reads the networks on disk and makes the built-in ones that are missing. */
  async init(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    for (const file of await readdir(this.dir)) {
      if (!file.endsWith('.json')) continue;
      const record = JSON.parse(await readFile(join(this.dir, file), 'utf8')) as NetworkRecord;
      this.networks.set(record.Id, record);
    }
    // As dockerd with docker0: a default bridge already on the host (an earlier svcd's, on another
    // data root) keeps its address, which CNI's bridge plugin would otherwise refuse to change.
    const adopted = this.deps.bip ? undefined : (await bridgeAddresses(this.deps.defaultBridge))?.[0];
    for (const name of builtinNames) {
      if ([...this.networks.values()].some((n) => n.Builtin && n.Name === name)) continue;
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
      await this.save(record);
    }
  }

  private async save(record: NetworkRecord): Promise<void> {
    await writeFileAtomic(join(this.dir, `${record.Id}.json`), JSON.stringify(record));
    this.networks.set(record.Id, record);
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
    let subnet = '';
    let gateway = '';
    let ipRange = '';
    let v6: Ipv6Addressing | undefined;
    let auto = false;
    if (input.Driver === 'bridge') {
      if (input.body?.EnableIPv6)
        v6 = ipv6Addressing(
          given,
          [...this.networks.values()].flatMap((n) => (n.Subnet6 ? [n.Subnet6] : [])),
        );
      const v4 = given.find((c) => c.Subnet && !c.Subnet.includes(':'));
      auto = !v4?.Subnet && !input.ipam;
      const chosen = v4?.Subnet
        ? await this.checkFree(parseSubnet(v4.Subnet))
        : input.ipam
          ? await this.checkFree(parseSubnet(input.ipam))
          : await this.freeSubnet();
      subnet = formatSubnet(chosen);
      gateway = v4?.Gateway ?? (input.ipam ? input.ipam.split('/')[0] : formatIp(chosen.base + 1));
      if (!overlaps(chosen, parseSubnet(`${gateway}/32`)))
        throw new InvalidParameterError(`no matching subnet for gateway ${gateway}`);
      if (v4?.IPRange) {
        const range = parseSubnet(v4.IPRange);
        if (!overlaps(chosen, range))
          throw new InvalidParameterError(`no matching subnet for range ${v4.IPRange}`);
        ipRange = formatSubnet(range);
      }
    }
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

  private async taken(): Promise<Subnet[]> {
    const ours = [...this.networks.values()].filter((n) => n.Subnet).map((n) => parseSubnet(n.Subnet));
    return [...ours, ...(await routedSubnets()).map(parseSubnet)];
  }

  private async checkFree(wanted: Subnet, except?: string): Promise<Subnet> {
    const mine = [...this.networks.values()].find(
      (n) => n.Id !== except && n.Subnet && overlaps(parseSubnet(n.Subnet), wanted),
    );
    if (mine) throw new ForbiddenError(`Pool overlaps with other one on this address space`);
    return wanted;
  }

  private async freeSubnet(): Promise<Subnet> {
    const taken = await this.taken();
    for (const pool of this.deps.pools) {
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

  /** A network by full ID, name, or unique ID prefix, as dockerd finds them. */
  get(ref: string): NetworkRecord {
    const all = [...this.networks.values()];
    const found =
      all.find((n) => n.Id === ref) ??
      all.find((n) => n.Name === ref) ??
      (() => {
        const byPrefix = all.filter((n) => n.Id.startsWith(ref));
        if (byPrefix.length > 1)
          throw new NotFoundError(
            `network ${ref} is ambiguous (${byPrefix.length} matches found based on ID prefix)`,
          );
        return byPrefix[0];
      })();
    if (!found || ref === '') throw new NotFoundError(`network ${ref} not found`);
    return found;
  }

  async create(body: NetworkCreateBody): Promise<NetworkCreateResponse> {
    const name = body.Name ?? '';
    // Any other name is one dockerd takes (spaces included).
    if (!name) throw new InvalidParameterError('network name is empty');
    const driver = body.Driver || 'bridge';
    if (builtinNames.includes(name))
      throw new ForbiddenError(`${name} is a pre-defined network and cannot be created`);
    const overlay = driver === 'overlay';
    if (overlay && !this.deps.swarmActive?.())
      throw new ForbiddenError('overlay networks need swarm mode: this node is not a swarm manager');
    if (driver !== 'bridge' && driver !== 'default' && !overlay)
      throw new NotFoundError(`plugin "${driver}" not found: svcd has the bridge and overlay drivers only`);
    if (body.IPAM?.Driver && body.IPAM.Driver !== 'default')
      throw new NotFoundError(
        `plugin "${body.IPAM.Driver}" not found: svcd has the default IPAM driver only`,
      );
    // Options the bridge driver does not know are kept and shown, as dockerd does.
    const options = body.Options ?? {};
    return this.serial(async () => {
      if ([...this.networks.values()].some((n) => n.Name === name)) {
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
      await this.save(record);
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
    return listNetworks(this.networks.values(), filters, this.deps.containers);
  }

  /**
   * Before a bridge network's first endpoint: its bridge exists with the network's gateway. The
   * subnet was chosen when the network was made, and another engine on the host may have taken it
   * since; a subnet picked from the pools then moves (while no endpoint uses it), a given one is
   * refused, so two engines never share a subnet silently. A bridge already there with another
   * address is adopted where the subnet may move, as dockerd adopts docker0's.
   */
  async ensureBridge(record: NetworkRecord): Promise<void> {
    if (record.Driver !== 'bridge' || this.claimedBridges.has(record.Bridge)) return;
    await this.serial(async () => {
      const movable =
        !!record.AutoSubnet && !this.deps.containers.networkMembers(record.Id).some((m) => m.endpoint);
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
        if (routed) await this.moveSubnet(record, await this.freeSubnet());
        await makeBridge(record.Bridge, `${record.Gateway}/${parseSubnet(record.Subnet).prefix}`);
      } else if (present.length > 0 && !present.includes(own)) {
        if (!movable)
          throw new ForbiddenError(
            `network ${record.Name}: bridge ${record.Bridge} already has the address ${present[0]}, not the network's gateway ${own}; another engine uses this bridge name`,
          );
        const adopted = parseSubnet(present[0]);
        await this.checkFree(adopted, record.Id);
        await this.moveSubnet(record, adopted, present[0].split('/')[0]);
      }
      this.claimedBridges.add(record.Bridge);
    });
  }

  /** The network takes another subnet: on disk first, then in the record its callers hold. */
  private async moveSubnet(record: NetworkRecord, subnet: Subnet, gateway = formatIp(subnet.base + 1)) {
    const Subnet = formatSubnet(subnet);
    const moved = { ...record, Subnet, Gateway: gateway, IpamConfig: [{ Subnet, Gateway: gateway }] };
    await this.save(moved);
    this.networks.set(record.Id, Object.assign(record, moved));
    this.deps.log.info('network moved to a free subnet', { network: record.Name, subnet: Subnet });
  }

  /** The network's inter-container rule, when its options turn that traffic off. */
  async ensureIsolation(record: NetworkRecord): Promise<void> {
    if (record.Driver === 'bridge' && record.Options[iccOption] === 'false')
      await isolateBridge(record.Bridge);
  }

  /** The network's name server on its gateway (network-resolvers.ts). */
  ensureResolver(record: NetworkRecord): Promise<void> {
    return this.resolvers.ensure(record);
  }

  /** After a restart: the name servers of networks whose containers kept running. */
  resumeResolvers(): Promise<void> {
    return this.resolvers.resume(this.networks.values());
  }

  /** Stops every network's name server (svcd is stopping). */
  close(): Promise<void> {
    return this.resolvers.close();
  }

  private async destroy(record: NetworkRecord): Promise<void> {
    await this.resolvers.stop(record.Id);
    // What the network made on the host goes first and its record last: a removal cut short
    // leaves the network listed, to be removed again, never host state nothing names.
    await releaseBridge(record.Bridge);
    // Made at the first attach; nothing else uses it now.
    await deleteBridge(record.Bridge);
    this.claimedBridges.delete(record.Bridge);
    await rm(join(this.cniDir, 'ipam', record.Id), { recursive: true, force: true });
    await rm(join(this.dir, `${record.Id}.json`), { force: true });
    this.networks.delete(record.Id);
    this.deps.events.publish('network', 'destroy', {
      id: record.Id,
      attributes: { name: record.Name, type: record.Driver },
    });
  }

  async remove(ref: string): Promise<void> {
    await this.serial(async () => {
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
    await this.serial(async () => {
      for (const n of [...this.networks.values()]) {
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
    const ip = settings?.IPAMConfig?.IPv4Address;
    if (ip) {
      if (record.Builtin)
        throw new InvalidParameterError(
          'user specified IP address is supported on user defined networks only',
        );
      if (!overlaps(parseSubnet(record.Subnet), { base: parseIp(ip), prefix: 32 }))
        throw new InvalidParameterError(`no configured subnet or ip-range contain the IP address ${ip}`);
    }
    const ip6 = settings?.IPAMConfig?.IPv6Address;
    if (ip6) {
      if (record.Builtin)
        throw new InvalidParameterError(
          'user specified IP address is supported on user defined networks only',
        );
      // As dockerd: an address for a network without IPv6 is valid but unused.
      if (record.Subnet6) checkIpv6Address(record as Ipv6Addressing, ip6);
      else parseIp6(ip6);
    }
    return record;
  }
}

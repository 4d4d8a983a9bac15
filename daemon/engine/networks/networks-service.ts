// Networks as Docker users know them, on CNI: the built-in bridge (svcd's own bridge, `svc0`
// unless configured), host and none, and user-defined bridge networks, each a Linux bridge run
// by the CNI bridge plugin with host-local addresses and portmap for published ports. A network
// is a JSON file under <data root>/networks; IPAM leases and CNI state live under
// <data root>/cni, so two engines on different data roots never share anything but the kernel.
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isolateBridge, releaseBridge } from '../../runtime/cni/bridge-isolation';
import { promisify } from 'node:util';
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
import { NameServer } from '../../runtime/dns/name-server';
import { nameservers } from '../../runtime/oci-spec/resolv-conf';

const run = promisify(execFile);

/** What svcd keeps of a network. */
export interface NetworkRecord {
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
  Options: Record<string, string>;
  Labels: Record<string, string>;
  /** The Linux bridge (bridge networks). */
  Bridge: string;
  Builtin: boolean;
}

/** A container attached to a network, as the containers engine reports it. */
export interface NetworkMember {
  id: string;
  name: string;
  aliases: string[];
  running: boolean;
  endpoint?: { EndpointID: string; MacAddress: string; IPAddress: string; IPPrefixLen: number };
}

export interface NetworksServiceDeps {
  dataRoot: string;
  events: EventsService;
  /** The default bridge's Linux name (`svc0`). */
  defaultBridge: string;
  /** Docker's default-address-pools: base and the size of each subnet taken from it. */
  pools: Array<{ base: string; size: number }>;
  /** `bip`: the default bridge's gateway address and prefix, when configured. */
  bip?: string;
  membersOf: (networkId: string) => NetworkMember[];
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
const mtuOption = 'com.docker.network.driver.mtu';
const iccOption = 'com.docker.network.bridge.enable_icc';
const masqOption = 'com.docker.network.bridge.enable_ip_masquerade';
const knownOptions = [
  bridgeOption,
  mtuOption,
  iccOption,
  masqOption,
  'com.docker.network.bridge.default_bridge',
  'com.docker.network.bridge.host_binding_ipv4',
];

function nowRfc3339(): string {
  return new Date().toISOString().replace(/Z$/, '000000Z');
}

export class NetworksService {
  private readonly networks = new Map<string, NetworkRecord>();
  /** The name server of each user network, on its gateway, made at its first endpoint. */
  private readonly resolvers = new Map<string, Promise<NameServer>>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: NetworksServiceDeps) {}

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
        ipam: name === 'bridge' ? this.deps.bip : undefined,
      });
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
    const given = input.body?.IPAM?.Config ?? [];
    let subnet = '';
    let gateway = '';
    let ipRange = '';
    if (input.Driver === 'bridge') {
      const v4 = given.find((c) => c.Subnet && !c.Subnet.includes(':'));
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
      EnableIPv6: false,
      Subnet: subnet,
      Gateway: gateway,
      IPRange: ipRange,
      IpamConfig: given.length ? given : subnet ? [{ Subnet: subnet, Gateway: gateway }] : [],
      Options: input.Options,
      Labels: input.body?.Labels ?? {},
      Bridge: input.Bridge || (input.Driver === 'bridge' ? `svc-${id.slice(0, 11)}` : ''),
      Builtin: input.Builtin,
    };
  }

  private async taken(): Promise<Subnet[]> {
    const ours = [...this.networks.values()].filter((n) => n.Subnet).map((n) => parseSubnet(n.Subnet));
    return [...ours, ...(await routedSubnets()).map(parseSubnet)];
  }

  private async checkFree(wanted: Subnet): Promise<Subnet> {
    const mine = [...this.networks.values()].find((n) => n.Subnet && overlaps(parseSubnet(n.Subnet), wanted));
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
    if (!name) throw new InvalidParameterError('network name is empty');
    if (!/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(name))
      throw new InvalidParameterError(`invalid network name: ${JSON.stringify(name)}`);
    const driver = body.Driver || 'bridge';
    if (builtinNames.includes(name))
      throw new ForbiddenError(`${name} is a pre-defined network and cannot be created`);
    if (driver === 'overlay')
      throw new ForbiddenError('overlay networks need swarm mode: this node is not a swarm manager');
    if (driver !== 'bridge' && driver !== 'default')
      throw new NotFoundError(`plugin "${driver}" not found: svcd has the bridge driver only`);
    if (body.EnableIPv6) throw new InvalidParameterError('IPv6 networks are not supported by svcd yet');
    if (body.IPAM?.Driver && body.IPAM.Driver !== 'default')
      throw new NotFoundError(
        `plugin "${body.IPAM.Driver}" not found: svcd has the default IPAM driver only`,
      );
    const options = body.Options ?? {};
    for (const key of Object.keys(options)) {
      if (!knownOptions.includes(key))
        throw new InvalidParameterError(`unknown bridge option ${JSON.stringify(key)}`);
    }
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
      await this.save(record);
      this.deps.events.publish('network', 'create', { id: record.Id, attributes: { name, type: 'bridge' } });
      return { Id: record.Id, Warning: '' };
    });
  }

  view(record: NetworkRecord, withContainers: boolean): NetworkResource {
    const containers: NetworkResource['Containers'] = {};
    if (withContainers) {
      for (const m of this.deps.membersOf(record.Id)) {
        if (!m.endpoint) continue;
        containers[m.id] = {
          Name: m.name,
          EndpointID: m.endpoint.EndpointID,
          MacAddress: m.endpoint.MacAddress,
          IPv4Address: m.endpoint.IPAddress ? `${m.endpoint.IPAddress}/${m.endpoint.IPPrefixLen}` : '',
          IPv6Address: '',
        };
      }
    }
    return {
      Name: record.Name,
      Id: record.Id,
      Created: record.Created,
      Scope: 'local',
      Driver: record.Driver,
      EnableIPv6: record.EnableIPv6,
      IPAM: { Driver: 'default', Options: record.Builtin ? null : {}, Config: record.IpamConfig },
      Internal: record.Internal,
      Attachable: record.Attachable,
      Ingress: false,
      ConfigFrom: { Network: '' },
      ConfigOnly: false,
      Containers: containers,
      Options: record.Options,
      Labels: record.Labels,
    };
  }

  inspect(ref: string): NetworkResource {
    return this.view(this.get(ref), true);
  }

  list(filters: NetworkFilters): NetworkResource[] {
    checkFilterKeys(filters, ['driver', 'id', 'label', 'name', 'scope', 'type', 'dangling']);
    const any = (key: string, test: (v: string) => boolean) => {
      const values = filters.get(key);
      return !values || values.some(test);
    };
    for (const t of filters.get('type') ?? []) {
      if (t !== 'custom' && t !== 'builtin') throw new InvalidParameterError(`invalid filter: 'type'='${t}'`);
    }
    return [...this.networks.values()]
      .filter(
        (n) =>
          any('driver', (v) => n.Driver === v) &&
          any('id', (v) => n.Id.startsWith(v)) &&
          any('name', (v) => n.Name.includes(v)) &&
          any('scope', (v) => v === 'local') &&
          any('type', (v) => (v === 'builtin') === n.Builtin) &&
          any(
            'dangling',
            (v) => (v === 'true' || v === '1') === (!n.Builtin && this.deps.membersOf(n.Id).length === 0),
          ) &&
          (filters.get('label') ?? []).every((l) => labelMatches(n.Labels, l)),
      )
      .sort((a, b) => a.Name.localeCompare(b.Name))
      .map((n) => this.view(n, false));
  }

  /** The network's inter-container rule, when its options turn that traffic off. */
  async ensureIsolation(record: NetworkRecord): Promise<void> {
    if (record.Driver === 'bridge' && record.Options[iccOption] === 'false')
      await isolateBridge(record.Bridge);
  }

  /**
   * Serves the network's names on its gateway (the bridge has that address once its first
   * endpoint exists): containers by name, alias and short ID; other names go to the host's
   * resolvers.
   */
  async ensureResolver(record: NetworkRecord): Promise<void> {
    if (record.Builtin || this.resolvers.has(record.Id)) return;
    const upstreams = nameservers(await readFile('/etc/resolv.conf', 'utf8').catch(() => '')).filter(
      (ip) => !ip.startsWith('127.'),
    );
    const lookup = (name: string) => {
      const wanted = name.replace(/\.$/, '');
      const ips = this.deps
        .membersOf(record.Id)
        .filter(
          (m) =>
            m.endpoint && (m.name === wanted || m.aliases.includes(wanted) || m.id.slice(0, 12) === wanted),
        )
        .map((m) => m.endpoint!.IPAddress);
      return ips.length ? ips : undefined;
    };
    const server = NameServer.listen(record.Gateway, lookup, upstreams);
    this.resolvers.set(record.Id, server);
    await server.catch((err: unknown) => {
      this.resolvers.delete(record.Id);
      throw err;
    });
  }

  /** After a restart: the name servers of networks whose containers kept running. */
  async resumeResolvers(): Promise<void> {
    for (const record of this.networks.values()) {
      if (record.Builtin || !this.deps.membersOf(record.Id).some((m) => m.running && m.endpoint)) continue;
      await this.ensureResolver(record).catch(() => undefined);
    }
  }

  /** Stops every network's name server (svcd is stopping). */
  async close(): Promise<void> {
    const servers = [...this.resolvers.values()];
    this.resolvers.clear();
    await Promise.all(servers.map((s) => s.then((ns) => ns.close()).catch(() => undefined)));
  }

  private async destroy(record: NetworkRecord): Promise<void> {
    await this.resolvers
      .get(record.Id)
      ?.then((ns) => ns.close())
      .catch(() => undefined);
    this.resolvers.delete(record.Id);
    // What the network made on the host goes first and its record last: a removal cut short
    // leaves the network listed, to be removed again, never host state nothing names.
    await releaseBridge(record.Bridge);
    // The bridge plugin made the bridge at the first attach; nothing else uses it now.
    await run('ip', ['link', 'del', record.Bridge]).catch(() => undefined);
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
      const members = this.deps.membersOf(record.Id);
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
        if (n.Builtin || this.deps.membersOf(n.Id).length > 0) continue;
        if (!(filters.get('label') ?? []).every((l) => labelMatches(n.Labels, l))) continue;
        if ((filters.get('label!') ?? []).some((l) => labelMatches(n.Labels, l))) continue;
        await this.destroy(n);
        deleted.push(n.Name);
      }
    });
    this.deps.events.publish('network', 'prune', { id: '', attributes: { reclaimed: '0' } });
    return { NetworksDeleted: deleted.length ? deleted : null };
  }

  /** The CNI chain of a bridge network for one container: bridge with host-local, then portmap. */
  cniChain(
    record: NetworkRecord,
    staticIp?: string,
  ): { name: string; cniVersion: string; plugins: Array<Record<string, unknown> & { type: string }> } {
    const range: Record<string, string> = { subnet: record.Subnet, gateway: record.Gateway };
    if (record.IPRange) {
      const r = parseSubnet(record.IPRange);
      range.rangeStart = formatIp(r.base + (r.base === parseSubnet(record.Subnet).base ? 2 : 0));
      range.rangeEnd = formatIp(r.base + subnetSize(r) - 2);
    }
    if (staticIp) {
      range.rangeStart = staticIp;
      range.rangeEnd = staticIp;
    }
    const mtu = Number(record.Options[mtuOption] ?? 0);
    return {
      name: record.Id,
      cniVersion: '1.0.0',
      plugins: [
        {
          type: 'bridge',
          bridge: record.Bridge,
          // The gateway address is on the bridge even for internal networks (their name server
          // listens there); internal ones get no default route and no masquerade instead.
          isGateway: true,
          ipMasq: !record.Internal && record.Options[masqOption] !== 'false',
          hairpinMode: true,
          ...(mtu ? { mtu } : {}),
          ipam: {
            type: 'host-local',
            ranges: [[range]],
            routes: record.Internal ? [] : [{ dst: '0.0.0.0/0' }],
            dataDir: join(this.cniDir, 'ipam'),
          },
        },
        ...(record.Internal ? [] : [{ type: 'portmap', capabilities: { portMappings: true }, snat: true }]),
      ],
    };
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
    return record;
  }
}

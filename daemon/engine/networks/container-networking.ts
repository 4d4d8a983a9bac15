// A container's side of networking: at create, the networks it will join; at start, a network
// namespace of its own with one interface per network (eth0, eth1, …) made by the network's CNI
// chain, published ports on the first; at exit, the chains' DEL and the namespace gone. What DEL
// needs is kept with the endpoint, so it works after an svcd restart or a removed network, and
// in a file beside the namespace, so what a crash left half made or half removed goes at start.
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { EndpointIPAMConfig, EndpointSettings, HostConfig, PortSet } from '../../api/container-types';
import type { PortBindingJson } from '../../api/container-summary-types';
import { InvalidParameterError } from '../../api/errors';
import { writeFileAtomic } from '../../lib/atomic-file';
import { cniAdd, cniDel, type CniResult } from '../../runtime/cni/cni-plugin';
import { createNetns, dropStaleNetns, removeNetns } from '../../runtime/cni/netns';
import type { NetworkMode } from '../../runtime/oci-spec/namespace-modes';
import { bridgeChain, type CniChain } from './bridge-chain';
import type { NetworksService } from './networks-service';
import { publishPorts, type PortMapping } from './published-ports';
import type { RootlessPorts } from './rootless-ports';

/** A network a container is configured to join (NetworkingConfig, connect). */
export interface NetworkAttachment {
  NetworkID: string;
  Aliases: string[] | null;
  IPAMConfig: EndpointIPAMConfig | null;
  /** Links on this network (`target[:alias]`), as given: names the container alone resolves. */
  Links?: string[] | null;
  /** The interface's MAC address, when asked for; otherwise the bridge plugin picks one. */
  MacAddress?: string;
  DriverOpts?: Record<string, string> | null;
}

/** A live endpoint: the interface CNI made and what it takes to remove it. */
export interface EndpointState {
  NetworkID: string;
  EndpointID: string;
  IfName: string;
  IPAddress: string;
  IPPrefixLen: number;
  Gateway: string;
  GlobalIPv6Address: string;
  GlobalIPv6PrefixLen: number;
  IPv6Gateway: string;
  MacAddress: string;
  chain: CniChain;
  portMappings: PortMapping[];
}

/**
 * What CNI DEL needs of an endpoint. It is recorded before the ADD, so that the sweep undoes an
 * ADD that svcd was killed in the middle of (its iptables rules and its address otherwise stay).
 */
export type EndpointTeardown = Pick<EndpointState, 'chain' | 'IfName' | 'portMappings'>;

export interface ContainerAttachInput {
  id: string;
  attachments: Record<string, NetworkAttachment>;
  hostConfig: Pick<HostConfig, 'PortBindings' | 'PublishAllPorts'>;
  exposed: PortSet | null | undefined;
  /** Host ports other running containers publish (`proto/ip/port`). */
  takenPorts: Set<string>;
}

export interface AttachResult {
  endpoints: Record<string, EndpointState>;
  ports: Record<string, PortBindingJson[] | null>;
}

/** A MAC address as dockerd takes one: six hex octets separated by colons. */
function checkMacAddress(mac: string): void {
  if (!/^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$/.test(mac))
    throw new InvalidParameterError(`invalid MAC address: ${mac}`);
}

function endpointOf(
  result: CniResult,
  ifName: string,
): Pick<
  EndpointState,
  | 'IPAddress'
  | 'IPPrefixLen'
  | 'Gateway'
  | 'MacAddress'
  | 'GlobalIPv6Address'
  | 'GlobalIPv6PrefixLen'
  | 'IPv6Gateway'
> {
  const sandboxIndex = (result.interfaces ?? []).findIndex((i) => i.name === ifName && i.sandbox);
  const ips = (result.ips ?? []).filter((i) => i.interface === undefined || i.interface === sandboxIndex);
  const family = (v6: boolean) => {
    const ip = ips.find((i) => i.address.includes(':') === v6);
    const [address = '', prefix = '0'] = (ip?.address ?? '').split('/');
    return { address, prefix: Number(prefix), gateway: ip?.gateway ?? '' };
  };
  const v4 = family(false);
  const v6 = family(true);
  return {
    IPAddress: v4.address,
    IPPrefixLen: v4.prefix,
    Gateway: v4.gateway,
    GlobalIPv6Address: v6.address,
    GlobalIPv6PrefixLen: v6.prefix,
    IPv6Gateway: v6.gateway,
    MacAddress: result.interfaces?.[sandboxIndex]?.mac ?? '',
  };
}

export class ContainerNetworking {
  constructor(
    private readonly networks: NetworksService,
    private readonly dataRoot: string,
    /** Rootless: ports forwarded from the host by rootlesskit instead of portmap's rules. */
    private readonly rootlessPorts?: RootlessPorts,
  ) {}

  /** A user network's name server address (its gateway); none for the default bridge. */
  resolverOf(id: string): string | undefined {
    try {
      const network = this.networks.get(id);
      return network.Builtin ? undefined : network.Gateway;
    } catch {
      return undefined;
    }
  }

  networkName(id: string): string {
    try {
      return this.networks.get(id).Name;
    } catch {
      return '';
    }
  }

  private get netnsDir(): string {
    return join(this.dataRoot, 'netns');
  }

  netnsPath(id: string): string {
    return join(this.netnsDir, id);
  }

  private endpointsPath(id: string): string {
    return `${this.netnsPath(id)}.json`;
  }

  /** Records a container's live endpoints beside its namespace, for the sweep at start. */
  async remember(containerId: string, endpoints: Record<string, EndpointTeardown>): Promise<void> {
    await writeFileAtomic(this.endpointsPath(containerId), JSON.stringify(endpoints));
  }

  /**
   * At start, before any container starts: the namespaces and endpoints of containers that no
   * longer run (svcd died while making or removing them) are removed — CNI DEL with what was
   * recorded, then the namespace, which takes the veths in it along.
   */
  async sweep(running: (containerId: string) => boolean): Promise<string[]> {
    const entries = await readdir(this.netnsDir).catch(() => [] as string[]);
    const ids = new Set(entries.filter((f) => /^[0-9a-f]{64}(\.json)?$/.test(f)).map((f) => f.slice(0, 64)));
    const swept: string[] = [];
    for (const id of ids) {
      if (running(id)) continue;
      await this.release(id);
      swept.push(id);
    }
    return swept;
  }

  /** Whether the container has a network namespace (one left behind, when it does not run). */
  hasNamespace(containerId: string): boolean {
    return existsSync(this.netnsPath(containerId));
  }

  /** What the container's endpoints left, as recorded at the attach: their DEL, then the namespace. */
  async release(containerId: string): Promise<void> {
    const endpoints = await readFile(this.endpointsPath(containerId), 'utf8').then(
      (text) => JSON.parse(text) as Record<string, EndpointTeardown>,
      () => ({}),
    );
    await this.detach(containerId, endpoints);
  }

  /** The networks a new container joins: its NetworkMode's, then the other EndpointsConfig entries. */
  attachmentsFor(
    mode: NetworkMode,
    endpoints: Record<string, EndpointSettings | null> | null | undefined,
    /** Config.MacAddress: the interface's address on the mode's network, as dockerd applies it. */
    macAddress?: string,
  ): Record<string, NetworkAttachment> {
    if (mode.kind !== 'network') {
      if (Object.keys(endpoints ?? {}).length > 0 && mode.kind !== 'none')
        throw new InvalidParameterError(
          `container sharing network namespace with another container or host cannot be connected to any other network`,
        );
      return {};
    }
    const entries = Object.entries(endpoints ?? {});
    if (entries.length > 1) {
      throw new InvalidParameterError(
        `Container cannot be connected to network endpoints: ${entries.map(([n]) => n).join(', ')}`,
      );
    }
    const names = [mode.name];
    const out: Record<string, NetworkAttachment> = {};
    for (const ref of names) {
      const settings = endpoints?.[ref] ?? entries[0]?.[1] ?? null;
      const record = this.networks.checkEndpoint(ref, settings);
      if (record.Driver !== 'bridge') continue;
      const mac = settings?.MacAddress || macAddress;
      if (mac) checkMacAddress(mac);
      out[record.Name] = {
        NetworkID: record.Id,
        Aliases: settings?.Aliases?.length ? settings.Aliases : null,
        IPAMConfig: settings?.IPAMConfig ?? null,
        Links: settings?.Links?.length ? settings.Links : null,
        ...(mac ? { MacAddress: mac.toLowerCase() } : {}),
        DriverOpts: settings?.DriverOpts ?? null,
      };
    }
    return out;
  }

  /** A new namespace with an interface on each network; published ports on the first. */
  async attach(input: ContainerAttachInput): Promise<AttachResult> {
    const netns = this.netnsPath(input.id);
    await createNetns(netns);
    const endpoints: Record<string, EndpointState> = {};
    let ports: AttachResult['ports'] = {};
    try {
      let index = 0;
      for (const [name, attachment] of Object.entries(input.attachments)) {
        const first = index === 0;
        const published = first
          ? await publishPorts(input.hostConfig, input.exposed, input.takenPorts, this.rootlessPorts?.probe)
          : { mappings: [], ports: {} };
        if (first) ports = published.ports;
        endpoints[name] = await this.addEndpoint(
          input.id,
          netns,
          `eth${index}`,
          attachment,
          published.mappings,
          (pending) => this.remember(input.id, { ...endpoints, [name]: pending }),
        );
        await this.remember(input.id, endpoints);
        if (first && this.rootlessPorts)
          await this.rootlessPorts.forward(input.id, published.mappings, endpoints[name].IPAddress);
        index++;
      }
    } catch (err) {
      await this.detach(input.id, endpoints);
      throw err;
    }
    return { endpoints, ports };
  }

  /**
   * One more interface in a running container's namespace (network connect). `recordFirst` keeps
   * what its DEL needs before the ADD begins.
   */
  async addEndpoint(
    containerId: string,
    netns: string,
    ifName: string,
    attachment: NetworkAttachment,
    portMappings: PortMapping[],
    recordFirst: (pending: EndpointTeardown) => Promise<void>,
  ): Promise<EndpointState> {
    const network = this.networks.get(attachment.NetworkID);
    await this.networks.ensureBridge(network);
    const mapped = this.portmapArgs(portMappings);
    const chain = bridgeChain(
      network,
      join(this.networks.cniDir, 'ipam'),
      mapped.portMappings.length > 0,
      attachment.IPAMConfig ?? {},
    );
    await recordFirst({ chain, IfName: ifName, portMappings });
    const result = await cniAdd(
      chain,
      { containerId, netns, ifName },
      { ...mapped, ...(attachment.MacAddress ? { mac: attachment.MacAddress } : {}) },
    );
    try {
      await this.networks.ensureIsolation(network);
      await this.networks.ensureResolver(network);
    } catch (err) {
      await cniDel(chain, { containerId, netns, ifName }, mapped, undefined).catch(() => undefined);
      throw err;
    }
    return {
      NetworkID: network.Id,
      EndpointID: randomBytes(32).toString('hex'),
      IfName: ifName,
      ...endpointOf(result, ifName),
      chain,
      portMappings,
    };
  }

  /** portmap's mappings: none where rootlesskit forwards the ports. */
  private portmapArgs(portMappings: PortMapping[]): { portMappings: PortMapping[] } {
    return { portMappings: this.rootlessPorts ? [] : portMappings };
  }

  async removeEndpoint(containerId: string, endpoint: EndpointTeardown): Promise<void> {
    if (this.rootlessPorts && endpoint.portMappings.length > 0) await this.rootlessPorts.release(containerId);
    await cniDel(
      endpoint.chain,
      { containerId, netns: this.netnsPath(containerId), ifName: endpoint.IfName },
      this.portmapArgs(endpoint.portMappings),
      undefined,
    );
  }

  /** Every endpoint's DEL, then the namespace; a failing DEL does not keep the others. */
  async detach(containerId: string, endpoints: Record<string, EndpointTeardown>): Promise<void> {
    await dropStaleNetns(this.netnsPath(containerId));
    let first: unknown;
    for (const endpoint of Object.values(endpoints).reverse()) {
      await this.removeEndpoint(containerId, endpoint).catch((err: unknown) => (first ??= err));
    }
    await removeNetns(this.netnsPath(containerId));
    if (first) throw first;
    await rm(this.endpointsPath(containerId), { force: true });
  }
}

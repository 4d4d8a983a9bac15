// A run's network endpoints: made before the task starts, removed after it exits, announced as
// dockerd announces them, and written into the /etc/hosts of the container and of its peers on
// user networks, so containers there reach each other by name, alias, short ID and the aliases
// of the endpoint's links.
import { readFile, writeFile } from 'node:fs/promises';
import { buildResolvConf } from '../../runtime/oci-spec/resolv-conf';
import type { EndpointSettings } from '../../api/container-types';
import { ForbiddenError } from '../../api/errors';
import { buildHostsFile } from '../../runtime/oci-spec/etc-hosts';
import type { Container } from './container';
import { aliasesLinking, linkHostsLines } from './container-links';
import { isRunning } from './container-state';
import type { EngineContext } from './engine-context';

/** The host's search domains, which a user network's containers keep. */
function searchOf(hostResolvConf: string): string[] | undefined {
  const line = hostResolvConf
    .split('\n')
    .filter((l) => /^search\s/.test(l))
    .at(-1);
  return line ? line.split(/\s+/).slice(1) : undefined;
}

/** Host ports the other containers' runs publish, as `proto/ip/port`. */
function takenPorts(ctx: EngineContext, except: string): Set<string> {
  const taken = new Set<string>();
  for (const c of ctx.registry.all()) {
    if (c.id === except) continue;
    for (const e of Object.values(c.record.Endpoints ?? {})) {
      for (const m of e.portMappings) taken.add(`${m.protocol}/${m.hostIP || '0.0.0.0'}/${m.hostPort}`);
    }
  }
  return taken;
}

function publish(
  ctx: EngineContext,
  container: Container,
  action: 'connect' | 'disconnect',
  networkId: string,
): void {
  ctx.events.publish('network', action, {
    id: networkId,
    attributes: { container: container.id, name: ctx.networking.networkName(networkId), type: 'bridge' },
  });
}

/** The container's /etc/hosts: its own addresses, then its peers on the user networks it shares. */
async function writeHosts(ctx: EngineContext, container: Container): Promise<void> {
  const r = container.record;
  const endpoints = Object.entries(r.Endpoints ?? {});
  const peers: string[] = [];
  for (const [network, mine] of endpoints) {
    if (network === 'bridge') continue;
    for (const other of ctx.registry.all()) {
      const theirs = other.record.Endpoints?.[network];
      if (other.id === container.id || !theirs || theirs.NetworkID !== mine.NetworkID) continue;
      const names = [
        other.record.Name.slice(1),
        ...(other.record.Networks?.[network]?.Aliases ?? []),
        other.id.slice(0, 12),
        ...aliasesLinking(r.Networks?.[network]?.Links, other.record),
      ];
      const line = [...new Set(names)].join(' ');
      peers.push(`${theirs.IPAddress}\t${line}`);
      if (theirs.GlobalIPv6Address) peers.push(`${theirs.GlobalIPv6Address}\t${line}`);
    }
  }
  const hosts = buildHostsFile({
    hostname: r.Config.Hostname ?? '',
    domainname: r.Config.Domainname,
    addresses: endpoints.flatMap(([, e]) => [
      e.IPAddress,
      ...(e.GlobalIPv6Address ? [e.GlobalIPv6Address] : []),
    ]),
    extraHosts: r.HostConfig.ExtraHosts,
    hostGatewayIp: endpoints[0]?.[1].Gateway,
  });
  const links = linkHostsLines(ctx, r);
  // In place: the file is bind-mounted into the container, so a rename would not be seen.
  await writeFile(r.Files.hostsPath, hosts + [...links, ...peers].map((p) => `${p}\n`).join(''));
  // On a user network names are served by the network's own name server, unless Dns says otherwise.
  const resolver = endpoints.length ? ctx.networking.resolverOf(endpoints[0][1].NetworkID) : undefined;
  if (resolver && !r.HostConfig.Dns?.length) {
    const host = await readFile('/etc/resolv.conf', 'utf8').catch(() => '');
    const resolv = buildResolvConf({
      hostResolvConf: `nameserver ${resolver}\n`,
      hostNetwork: false,
      dnsSearch: r.HostConfig.DnsSearch ?? searchOf(host),
      dnsOptions: r.HostConfig.DnsOptions,
    });
    await writeFile(r.Files.resolvConfPath, resolv);
  }
}

/** Rewrites the container's /etc/hosts when it runs (its links changed). */
export async function refreshHosts(ctx: EngineContext, container: Container): Promise<void> {
  if (isRunning(container.record.State)) await writeHosts(ctx, container);
}

/** Rewrites /etc/hosts of every running container on the networks given. */
async function refreshPeers(ctx: EngineContext, networkIds: Set<string>): Promise<void> {
  for (const c of ctx.registry.all()) {
    if (!isRunning(c.record.State) && !c.starting) continue;
    if (!Object.values(c.record.Endpoints ?? {}).some((e) => networkIds.has(e.NetworkID))) continue;
    await writeHosts(ctx, c).catch((err: Error) =>
      ctx.log.warn('hosts file not updated', { container: c.id, error: err.message }),
    );
  }
}

export async function connectNetworks(ctx: EngineContext, container: Container): Promise<void> {
  const r = container.record;
  if (Object.keys(r.Networks ?? {}).length === 0) return;
  const result = await ctx.networking.attach({
    id: container.id,
    attachments: r.Networks ?? {},
    hostConfig: r.HostConfig,
    exposed: r.Config.ExposedPorts,
    takenPorts: takenPorts(ctx, container.id),
  });
  r.Endpoints = result.endpoints;
  r.Ports = result.ports;
  const ids = new Set(Object.values(result.endpoints).map((e) => e.NetworkID));
  for (const id of ids) publish(ctx, container, 'connect', id);
  await writeHosts(ctx, container);
  await refreshPeers(ctx, ids);
}

export async function disconnectNetworks(ctx: EngineContext, container: Container): Promise<void> {
  const r = container.record;
  const endpoints = r.Endpoints ?? {};
  if (Object.keys(endpoints).length === 0) return;
  // Cleared before the first await: the record saved at the exit no longer claims them.
  r.Endpoints = {};
  r.Ports = {};
  try {
    await ctx.networking.detach(container.id, endpoints);
  } finally {
    const ids = new Set(Object.values(endpoints).map((e) => e.NetworkID));
    for (const id of ids) publish(ctx, container, 'disconnect', id);
    await refreshPeers(ctx, ids);
  }
}

/** network connect: the network added to the container's, live when it runs. */
export async function connectOne(
  ctx: EngineContext,
  container: Container,
  networkRef: string,
  settings: EndpointSettings | null,
): Promise<void> {
  const r = container.record;
  if (r.NetworkMode !== 'network')
    throw new ForbiddenError(
      'container sharing network namespace with another container or host cannot be connected to any other network',
    );
  const [name, attachment] =
    Object.entries(
      ctx.networking.attachmentsFor(
        { kind: 'network', name: networkRef },
        settings ? { [networkRef]: settings } : undefined,
      ),
    )[0] ?? [];
  if (!name || !attachment)
    throw new ForbiddenError(`container cannot be connected to network ${networkRef}`);
  if (r.Networks?.[name])
    throw new ForbiddenError(`endpoint with name ${r.Name.slice(1)} already exists in network ${name}`);
  r.Networks = { ...r.Networks, [name]: attachment };
  if (isRunning(r.State) && r.Endpoints) {
    const ifName = `eth${Object.keys(r.Endpoints).length}`;
    try {
      r.Endpoints[name] = await ctx.networking.addEndpoint(
        container.id,
        ctx.networking.netnsPath(container.id),
        ifName,
        attachment,
        [],
        (pending) => ctx.networking.remember(container.id, { ...r.Endpoints, [name]: pending }),
      );
    } catch (err) {
      delete r.Networks[name];
      throw err;
    }
    await ctx.networking.remember(container.id, r.Endpoints);
    publish(ctx, container, 'connect', attachment.NetworkID);
    await writeHosts(ctx, container);
    await refreshPeers(ctx, new Set([attachment.NetworkID]));
  }
}

/** network disconnect: the network dropped from the container's, live when it runs. */
export async function disconnectOne(
  ctx: EngineContext,
  container: Container,
  networkRef: string,
): Promise<void> {
  const r = container.record;
  const entry = Object.entries(r.Networks ?? {}).find(
    ([name, a]) => name === networkRef || a.NetworkID.startsWith(networkRef),
  );
  if (!entry) throw new ForbiddenError(`container ${container.id} is not connected to network ${networkRef}`);
  const [name, attachment] = entry;
  const endpoint = r.Endpoints?.[name];
  delete r.Networks?.[name];
  if (endpoint && r.Endpoints) {
    delete r.Endpoints[name];
    await ctx.networking.removeEndpoint(container.id, endpoint);
    await ctx.networking.remember(container.id, r.Endpoints);
    publish(ctx, container, 'disconnect', attachment.NetworkID);
    await writeHosts(ctx, container);
    await refreshPeers(ctx, new Set([attachment.NetworkID]));
  }
}

// The name server of each user network, on its gateway: containers by name, alias and short ID;
// other names go to the host's resolvers. Made at a network's first endpoint.
import { readFile } from 'node:fs/promises';
import { NameServer } from '../../runtime/dns/name-server';
import { nameservers } from '../../runtime/oci-spec/resolv-conf';
import type { ContainerUsage } from '../shared/container-usage';
import type { SwarmMembership } from '../shared/swarm-membership';
import { lookupName } from './network-names';
import type { NetworkRecord } from './network-records';

export class NetworkResolvers {
  private readonly servers = new Map<string, Promise<NameServer>>();

  constructor(
    private readonly containers: Pick<ContainerUsage, 'networkMembers'>,
    /** Names the swarm answers for on a network before its members (a service's VIP). */
    private readonly swarm: Pick<SwarmMembership, 'nameOn'>,
  ) {}

  /** Serves the network's names (the bridge has its gateway once its first endpoint exists). */
  async ensure(record: NetworkRecord): Promise<void> {
    if (record.Builtin) return;
    await (this.servers.get(record.Id) ?? this.start(record));
  }

  /** Kept in the map from the first moment, so endpoints added at once share one server. */
  private start(record: NetworkRecord): Promise<NameServer> {
    const server = (async () => {
      const upstreams = nameservers(await readFile('/etc/resolv.conf', 'utf8').catch(() => '')).filter(
        (ip) => !ip.startsWith('127.'),
      );
      const lookup = (name: string, from: string) =>
        this.swarm.nameOn(record.Id, name) ??
        lookupName(this.containers.networkMembers(record.Id), name, from);
      return NameServer.listen(record.Gateway, lookup, upstreams);
    })();
    this.servers.set(record.Id, server);
    server.catch(() => {
      if (this.servers.get(record.Id) === server) this.servers.delete(record.Id);
    });
    return server;
  }

  /** After a restart: the name servers of networks whose containers kept running. */
  async resume(records: Iterable<NetworkRecord>): Promise<void> {
    for (const record of records) {
      if (record.Builtin || !this.containers.networkMembers(record.Id).some((m) => m.running && m.endpoint))
        continue;
      await this.ensure(record).catch(() => undefined);
    }
  }

  /** Stops the network's name server (it is being removed). */
  async stop(id: string): Promise<void> {
    await this.servers
      .get(id)
      ?.then((ns) => ns.close())
      .catch(() => undefined);
    this.servers.delete(id);
  }

  /** Stops every network's name server (svcd is stopping). */
  async close(): Promise<void> {
    const servers = [...this.servers.values()];
    this.servers.clear();
    await Promise.all(servers.map((s) => s.then((ns) => ns.close()).catch(() => undefined)));
  }
}

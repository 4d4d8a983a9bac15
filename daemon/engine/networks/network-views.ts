// What GET /networks and /networks/{id} show of a network record: Docker's NetworkResource.
import { InvalidParameterError } from '../../api/errors';
import type { NetworkFilters, NetworkResource } from '../../api/network-types';
import { checkFilterKeys, labelMatches } from '../../lib/filters';
import type { ContainerUsage, NetworkMember } from '../shared/container-usage';
import type { NetworkRecord } from './network-records';

const driverOf = (n: NetworkRecord) => (n.Overlay ? 'overlay' : n.Driver);
const scopeOf = (n: NetworkRecord) => (n.Overlay ? 'swarm' : 'local');

/** The API's view of a network; with the endpoints of its members when `members` is given. */
export function networkView(record: NetworkRecord, members?: NetworkMember[]): NetworkResource {
  const containers: NetworkResource['Containers'] = {};
  if (members) {
    for (const m of members) {
      if (!m.endpoint) continue;
      containers[m.id] = {
        Name: m.name,
        EndpointID: m.endpoint.EndpointID,
        MacAddress: m.endpoint.MacAddress,
        IPv4Address: m.endpoint.IPAddress ? `${m.endpoint.IPAddress}/${m.endpoint.IPPrefixLen}` : '',
        IPv6Address: m.endpoint.GlobalIPv6Address
          ? `${m.endpoint.GlobalIPv6Address}/${m.endpoint.GlobalIPv6PrefixLen}`
          : '',
      };
    }
  }
  return {
    Name: record.Name,
    Id: record.Id,
    Created: record.Created,
    Scope: scopeOf(record),
    Driver: driverOf(record),
    EnableIPv6: record.EnableIPv6,
    IPAM: { Driver: 'default', Options: record.IpamOptions ?? null, Config: record.IpamConfig },
    Internal: record.Internal,
    Attachable: record.Attachable,
    Ingress: !!record.Overlay?.Ingress,
    ConfigFrom: { Network: '' },
    ConfigOnly: false,
    Containers: containers,
    Options: record.Options,
    Labels: record.Labels,
  };
}

/** GET /networks: the networks the filters keep, by name. */
export function listNetworks(
  networks: Iterable<NetworkRecord>,
  filters: NetworkFilters,
  containers: Pick<ContainerUsage, 'networkMembers'>,
): NetworkResource[] {
  checkFilterKeys(filters, ['driver', 'id', 'label', 'name', 'scope', 'type', 'dangling']);
  const any = (key: string, test: (v: string) => boolean) => {
    const values = filters.get(key);
    return !values || values.some(test);
  };
  for (const t of filters.get('type') ?? []) {
    if (t !== 'custom' && t !== 'builtin') throw new InvalidParameterError(`invalid filter: 'type'='${t}'`);
  }
  return [...networks]
    .filter(
      (n) =>
        any('driver', (v) => driverOf(n) === v) &&
        any('id', (v) => n.Id.startsWith(v)) &&
        any('name', (v) => n.Name.includes(v)) &&
        any('scope', (v) => v === scopeOf(n)) &&
        any('type', (v) => (v === 'builtin') === n.Builtin) &&
        any(
          'dangling',
          (v) => (v === 'true' || v === '1') === (!n.Builtin && containers.networkMembers(n.Id).length === 0),
        ) &&
        (filters.get('label') ?? []).every((l) => labelMatches(n.Labels, l)),
    )
    .sort((a, b) => a.Name.localeCompare(b.Name))
    .map((n) => networkView(n));
}

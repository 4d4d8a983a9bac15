// The names a user network's name server answers for: its members by name, alias and short ID,
// and, for the member asking only, the aliases of its links on that network (`target:alias`).
import type { KnownName } from '../../runtime/dns/name-server';
import type { NetworkMember } from '../shared/container-usage';

function addressesOf(members: NetworkMember[]): KnownName {
  const live = members.flatMap((m) => (m.endpoint ? [m.endpoint] : []));
  return {
    v4: live.flatMap((e) => (e.IPAddress ? [e.IPAddress] : [])),
    v6: live.flatMap((e) => (e.GlobalIPv6Address ? [e.GlobalIPv6Address] : [])),
  };
}

/** What `name` is on the network for the member at address `from`, or undefined if nothing. */
export function lookupName(members: NetworkMember[], name: string, from: string): KnownName | undefined {
  const wanted = name.replace(/\.$/, '');
  const named = members.filter(
    (m) => m.endpoint && (m.name === wanted || m.aliases.includes(wanted) || m.id.slice(0, 12) === wanted),
  );
  const asking = members.find(
    (m) => m.endpoint && (m.endpoint.IPAddress === from || m.endpoint.GlobalIPv6Address === from),
  );
  const linked = (asking?.links ?? []).flatMap((spec) => {
    const [target, alias = target] = spec.split(':');
    if (alias !== wanted) return [];
    return members.filter((m) => m.endpoint && (m.name === target || m.id.startsWith(target)));
  });
  const found = [...new Set([...named, ...linked])];
  return found.length ? addressesOf(found) : undefined;
}

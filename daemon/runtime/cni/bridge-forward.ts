// What lets a bridge's traffic through the filter table's FORWARD chain where its policy is
// DROP: dockerd sets that policy when it turns IP forwarding on, and host firewalls do too; with
// br_netfilter loaded even traffic between two members of one bridge passes FORWARD. As Docker
// does for its bridges: replies and published ports (connections our DNAT made) into the bridge,
// the members' own traffic out of it unless the network is internal, and between members unless
// inter-container traffic is off (bridge-isolation.ts drops that). The comment names the bridge,
// which is this svcd's own, so engines beside each other never touch each other's rules.
import { addRuleOnce, deleteRulesWithComment, type Family } from './iptables-rules';

export interface BridgeForwarding {
  bridge: string;
  /** An internal network's members reach nothing beyond the bridge. */
  internal: boolean;
  /** Inter-container traffic on (the network's enable_icc option). */
  icc: boolean;
  families: Family[];
}

const commentOf = (bridge: string) => `svcd forward ${bridge}`;

function rules(f: BridgeForwarding): string[][] {
  const accept = ['-m', 'comment', '--comment', commentOf(f.bridge), '-j', 'ACCEPT'];
  const into = ['-o', f.bridge, '-m', 'conntrack', '--ctstate'];
  return [
    ['FORWARD', ...into, 'RELATED,ESTABLISHED,DNAT', ...accept],
    ...(f.internal ? [] : [['FORWARD', '-i', f.bridge, '!', '-o', f.bridge, ...accept]]),
    ...(f.icc ? [['FORWARD', '-i', f.bridge, '-o', f.bridge, ...accept]] : []),
  ];
}

/**
 * Adds the rules that are missing (a restarted svcd finds those it made before), first in the
 * chain so that a firewall's own final DROP comes after them.
 */
export async function allowForwarding(f: BridgeForwarding): Promise<void> {
  for (const family of f.families)
    for (const rule of rules(f)) await addRuleOnce(family, 'filter', '-I', rule);
}

/** Removes every rule naming the bridge, in both families. */
export async function releaseForwarding(bridge: string): Promise<void> {
  for (const family of ['ipv4', 'ipv6'] as const)
    await deleteRulesWithComment(family, 'filter', 'FORWARD', commentOf(bridge));
}

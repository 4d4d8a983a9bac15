// Inter-container traffic off on a bridge (`com.docker.network.bridge.enable_icc=false`), as
// Docker does it: one FORWARD rule dropping what enters and leaves the same bridge, so members
// still reach the gateway and beyond. No CNI plugin does this; the rule names the bridge, which
// is this svcd's own, so engines beside each other never touch each other's rules.
import { addRuleOnce, deleteRulesWithComment } from './iptables-rules';

const commentOf = (bridge: string) => `svcd no icc ${bridge}`;

function rule(bridge: string): string[] {
  return [
    'FORWARD',
    '-i',
    bridge,
    '-o',
    bridge,
    '-m',
    'comment',
    '--comment',
    commentOf(bridge),
    '-j',
    'DROP',
  ];
}

/** Adds the rule once (bridges are set up one endpoint at a time; the check keeps it single). */
export async function isolateBridge(bridge: string): Promise<void> {
  await addRuleOnce('ipv4', 'filter', '-I', rule(bridge)).catch((err: unknown) => {
    throw new Error(`iptables refused the isolation rule of ${bridge}`, { cause: err });
  });
}

/** Removes the rule, every copy of it. */
export function releaseBridge(bridge: string): Promise<void> {
  return deleteRulesWithComment('ipv4', 'filter', 'FORWARD', commentOf(bridge));
}

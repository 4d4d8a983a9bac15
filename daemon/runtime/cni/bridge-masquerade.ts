// Outbound masquerade of a bridge network, as Docker does it: one nat POSTROUTING rule per
// subnet for what leaves by another link than the bridge. The CNI bridge plugin's ipMasq makes
// a chain per container instead, eight iptables runs at each ADD and six at each DEL. The rule's
// comment names the network (its ID), so a removal finds it whatever subnet it was made with.
import { addRuleOnce, deleteRulesWithComment, familyOf } from './iptables-rules';

export interface Masquerade {
  networkId: string;
  bridge: string;
  subnet: string;
}

const commentOf = (networkId: string) => `svcd masquerade ${networkId}`;

/** Adds the rule unless it is there (a restarted svcd finds the one it made before). */
export async function masqueradeBridge(m: Masquerade): Promise<void> {
  const rule = ['POSTROUTING', '-s', m.subnet, '!', '-o', m.bridge];
  const spec = [...rule, '-m', 'comment', '--comment', commentOf(m.networkId), '-j', 'MASQUERADE'];
  await addRuleOnce(familyOf(m.subnet), 'nat', '-A', spec);
}

/** Removes every rule naming the network, in both families. */
export async function releaseMasquerade(networkId: string): Promise<void> {
  for (const family of ['ipv4', 'ipv6'] as const)
    await deleteRulesWithComment(family, 'nat', 'POSTROUTING', commentOf(networkId));
}

// Inter-container traffic off on a bridge (`com.docker.network.bridge.enable_icc=false`), as
// Docker does it: one FORWARD rule dropping what enters and leaves the same bridge, so members
// still reach the gateway and beyond. No CNI plugin does this; the rule names the bridge, which
// is this svcd's own, so engines beside each other never touch each other's rules.
import { addRuleOnce, iptables } from './iptables-rules';

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
    `svcd no icc ${bridge}`,
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
export async function releaseBridge(bridge: string): Promise<void> {
  for (;;) {
    const deleted = await iptables('ipv4', 'filter', ['-D', ...rule(bridge)]).then(
      () => true,
      () => false,
    );
    if (!deleted) return;
  }
}

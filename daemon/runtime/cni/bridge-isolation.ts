// Inter-container traffic off on a bridge (`com.docker.network.bridge.enable_icc=false`), as
// Docker does it: one FORWARD rule dropping what enters and leaves the same bridge, so members
// still reach the gateway and beyond. No CNI plugin does this; the rule names the bridge, which
// is this svcd's own, so engines beside each other never touch each other's rules.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

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

const iptables = (action: string, bridge: string) =>
  run('iptables', ['-w', '5', action, ...rule(bridge)]).then(
    () => true,
    () => false,
  );

/** Adds the rule once (bridges are set up one endpoint at a time; the check keeps it single). */
export async function isolateBridge(bridge: string): Promise<void> {
  if (await iptables('-C', bridge)) return;
  if (!(await iptables('-I', bridge))) throw new Error(`iptables refused the isolation rule of ${bridge}`);
}

/** Removes the rule, every copy of it. */
export async function releaseBridge(bridge: string): Promise<void> {
  while (await iptables('-D', bridge));
}

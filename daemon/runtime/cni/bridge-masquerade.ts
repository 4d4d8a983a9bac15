// Outbound masquerade of a bridge network, as Docker does it: one nat POSTROUTING rule per
// subnet for what leaves by another link than the bridge. The CNI bridge plugin's ipMasq makes
// a chain per container instead, eight iptables runs at each ADD and six at each DEL. The rule's
// comment names the network (its ID), so a removal finds it whatever subnet it was made with.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Masquerade {
  networkId: string;
  bridge: string;
  subnet: string;
}

const commentOf = (networkId: string) => `svcd masquerade ${networkId}`;
const tool = (subnet: string) => (subnet.includes(':') ? 'ip6tables' : 'iptables');

function rule(m: Masquerade): string[] {
  return ['POSTROUTING', '-s', m.subnet, '!', '-o', m.bridge];
}

const nat = (subnet: string, args: string[]) => run(tool(subnet), ['-w', '5', '-t', 'nat', ...args]);

/** Adds the rule unless it is there (a restarted svcd finds the one it made before). */
export async function masqueradeBridge(m: Masquerade): Promise<void> {
  const spec = [...rule(m), '-m', 'comment', '--comment', commentOf(m.networkId), '-j', 'MASQUERADE'];
  const present = await nat(m.subnet, ['-C', ...spec]).then(
    () => true,
    () => false,
  );
  if (!present) await nat(m.subnet, ['-A', ...spec]);
}

/** Removes every rule naming the network, in both families. */
export async function releaseMasquerade(networkId: string): Promise<void> {
  const mark = `"${commentOf(networkId)}"`;
  for (const family of ['0.0.0.0/0', '::/0']) {
    const listed = await nat(family, ['-S', 'POSTROUTING']).catch(() => ({ stdout: '' }));
    for (const line of listed.stdout.split('\n')) {
      if (!line.startsWith('-A POSTROUTING ') || !line.includes(mark)) continue;
      // iptables -S quotes the comment; the rule's words are otherwise plain.
      const words = line.slice(3).match(/"[^"]*"|\S+/g) ?? [];
      await nat(family, ['-D', ...words.map((w) => w.replace(/^"(.*)"$/, '$1'))]).catch(() => undefined);
    }
  }
}

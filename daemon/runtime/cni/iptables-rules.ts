// The iptables calls the bridge rules share: a rule checked then added, and every rule of a chain
// whose comment carries a mark deleted, whatever else it says (a removal then needs no memory
// of how the rule was made).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type Family = 'ipv4' | 'ipv6';

export const familyOf = (subnet: string): Family => (subnet.includes(':') ? 'ipv6' : 'ipv4');

/** Runs iptables (or ip6tables) on `table`, waiting up to 5 s for the xtables lock. */
export function iptables(family: Family, table: string, args: string[]): Promise<{ stdout: string }> {
  return run(family === 'ipv6' ? 'ip6tables' : 'iptables', ['-w', '5', '-t', table, ...args]);
}

/** Adds `rule` (a chain and its match) with `how` (-A or -I) unless the same rule is there. */
export async function addRuleOnce(family: Family, table: string, how: '-A' | '-I', rule: string[]) {
  const present = await iptables(family, table, ['-C', ...rule]).then(
    () => true,
    () => false,
  );
  if (!present) await iptables(family, table, [how, ...rule]);
}

/** Deletes every rule of `chain` whose comment is `comment`. */
export async function deleteRulesWithComment(family: Family, table: string, chain: string, comment: string) {
  const mark = `"${comment}"`;
  const listed = await iptables(family, table, ['-S', chain]).catch(() => ({ stdout: '' }));
  for (const line of listed.stdout.split('\n')) {
    if (!line.startsWith(`-A ${chain} `) || !line.includes(mark)) continue;
    // iptables -S quotes the comment; the rule's words are otherwise plain.
    const words = line.slice(3).match(/"[^"]*"|\S+/g) ?? [];
    await iptables(family, table, ['-D', ...words.map((w) => w.replace(/^"(.*)"$/, '$1'))]).catch(
      () => undefined,
    );
  }
}

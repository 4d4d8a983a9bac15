// A swarm service's virtual IP on a bridge, without IPVS: the address is the host's on the
// bridge (so members' ARP for it is answered), and a nat chain of the service's own spreads new
// connections to it over the tasks' addresses by DNAT, every port and protocol, as IPVS on a
// firewall mark does for dockerd. What is forwarded is masqueraded to the gateway, so answers
// come back through the host (also when a task reaches its own service). Every rule names the
// bridge, which is this svcd's own, so engines side by side never touch each other's.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { formatIp, parseSubnet, subnetSize } from './ipv4';

const run = promisify(execFile);

export interface VipRoute {
  bridge: string;
  vip: string;
  /** The tasks' addresses on the bridge's network. */
  backends: string[];
}

const chainOf = (r: { bridge: string; vip: string }) =>
  'SVCD-VIP-' + createHash('sha256').update(`${r.bridge} ${r.vip}`).digest('hex').slice(0, 16).toUpperCase();

const comment = (r: { bridge: string }) => ['-m', 'comment', '--comment', `svcd vip ${r.bridge}`];

const jump = (r: VipRoute) => [
  'PREROUTING',
  '-i',
  r.bridge,
  '-d',
  `${r.vip}/32`,
  ...comment(r),
  '-j',
  chainOf(r),
];

const masquerade = (r: VipRoute) => [
  'POSTROUTING',
  '-o',
  r.bridge,
  '-m',
  'conntrack',
  '--ctstate',
  'DNAT',
  '--ctorigdst',
  `${r.vip}/32`,
  ...comment(r),
  '-j',
  'MASQUERADE',
];

const nat = (args: string[]) => run('iptables', ['-w', '5', '-t', 'nat', ...args]);
const holds = (args: string[]) =>
  nat(['-C', ...args]).then(
    () => true,
    () => false,
  );

/** Makes the route what it says: the address on the bridge, the chain holding its backends. */
export async function applyVipRoute(r: VipRoute): Promise<void> {
  await run('ip', ['addr', 'replace', `${r.vip}/32`, 'dev', r.bridge]);
  const chain = chainOf(r);
  await nat(['-N', chain]).catch(() => undefined);
  await nat(['-F', chain]);
  const n = r.backends.length;
  for (const [i, ip] of r.backends.entries()) {
    // Each rule takes its share of what the ones before it left: 1/n, 1/(n-1), …, all.
    const share =
      i < n - 1 ? ['-m', 'statistic', '--mode', 'random', '--probability', (1 / (n - i)).toFixed(5)] : [];
    await nat(['-A', chain, ...share, '-j', 'DNAT', '--to-destination', ip]);
  }
  if (!(await holds(jump(r)))) await nat(['-A', ...jump(r)]);
  // First in POSTROUTING: the per-container CNI chains there accept traffic within the subnet.
  if (!(await holds(masquerade(r)))) await nat(['-I', masquerade(r)[0], '1', ...masquerade(r).slice(1)]);
}

/** Takes the route away: rules, chain and address (the bridge may be gone already). */
export async function removeVipRoute(r: { bridge: string; vip: string }): Promise<void> {
  const route = { ...r, backends: [] };
  while (await holds(jump(route))) await nat(['-D', ...jump(route)]);
  while (await holds(masquerade(route))) await nat(['-D', ...masquerade(route)]);
  await nat(['-F', chainOf(r)]).catch(() => undefined);
  await nat(['-X', chainOf(r)]).catch(() => undefined);
  await run('ip', ['addr', 'del', `${r.vip}/32`, 'dev', r.bridge]).catch(() => undefined);
}

/**
 * An address of the subnet for a VIP, taken from the top down, held as a lease in host-local's
 * store (one file per address, made exclusively), so no container is given it meanwhile.
 */
export async function reserveVip(
  leaseDir: string,
  subnet: string,
  gateway: string,
  owner: string,
): Promise<string> {
  const s = parseSubnet(subnet);
  await mkdir(leaseDir, { recursive: true });
  for (let n = s.base + subnetSize(s) - 2; n > s.base + 1; n--) {
    const ip = formatIp(n);
    if (ip === gateway) continue;
    try {
      await writeFile(join(leaseDir, ip), `${owner}\r\nvip`, { flag: 'wx', mode: 0o600 });
      return ip;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  throw new Error(`no free address left in ${subnet} for a virtual IP`);
}

/** Gives the address back, if it is still this owner's. */
export async function releaseVip(leaseDir: string, ip: string, owner: string): Promise<void> {
  const held = await readFile(join(leaseDir, ip), 'utf8').catch(() => '');
  if (held.split('\r\n')[0] === owner) await rm(join(leaseDir, ip), { force: true });
}

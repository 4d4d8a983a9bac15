// A bridge network's Linux bridge as the host has it: its IPv4 addresses, whether anything is
// plugged into it, and making it with the network's gateway. svcd makes the bridge itself, before
// the CNI bridge plugin's first ADD, so the subnet is claimed in the routing table the moment it is
// checked free, and another engine choosing a subnet sees it.
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The bridge's IPv4 addresses as `address/prefix`; undefined when there is no such device. */
export async function bridgeAddresses(name: string): Promise<string[] | undefined> {
  const { stdout } = await run('ip', ['-j', '-4', 'addr', 'show', 'dev', name]).catch(() => ({ stdout: '' }));
  if (!stdout.trim()) return undefined;
  const links = JSON.parse(stdout) as Array<{ addr_info?: Array<{ local: string; prefixlen: number }> }>;
  if (links.length === 0) return undefined;
  return (links[0].addr_info ?? []).map((a) => `${a.local}/${a.prefixlen}`);
}

/** Whether any interface (a container's veth) is plugged into the bridge. */
export async function bridgeHasPorts(name: string): Promise<boolean> {
  return (await readdir(`/sys/class/net/${name}/brif`).catch(() => [])).length > 0;
}

/** Makes the bridge with `gateway` (`address/prefix`) and brings it up. */
export async function makeBridge(name: string, gateway: string): Promise<void> {
  await run('ip', ['link', 'add', 'name', name, 'type', 'bridge']);
  try {
    await run('ip', ['addr', 'add', gateway, 'dev', name]);
    await run('ip', ['link', 'set', name, 'up']);
  } catch (err) {
    await deleteBridge(name);
    throw err;
  }
}

export async function deleteBridge(name: string): Promise<void> {
  await run('ip', ['link', 'del', name]).catch(() => undefined);
}

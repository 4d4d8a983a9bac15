// The per-container /etc/hosts, /etc/resolv.conf and /etc/hostname, written to the container's
// directory and bind-mounted by the spec.
import { readFile, writeFile } from 'node:fs/promises';
import type { ContainerConfig, HostConfig } from '../../api/container-types';
import { buildHostnameFile, buildHostsFile } from '../../runtime/oci-spec/etc-hosts';
import { buildResolvConf } from '../../runtime/oci-spec/resolv-conf';
import type { ContainerFilesRecord } from './container-record';

async function readOr(path: string, fallback: string): Promise<string> {
  return readFile(path, 'utf8').catch(() => fallback);
}

export async function writeContainerFiles(
  files: ContainerFilesRecord,
  opts: { config: ContainerConfig; hostConfig: HostConfig; hostname: string; hostNetwork: boolean },
): Promise<void> {
  const { hostConfig } = opts;
  const hosts = buildHostsFile({
    hostname: opts.hostname,
    domainname: opts.config.Domainname,
    // Loopback is the only address a container has while svcd has no container networks.
    addresses: opts.hostNetwork ? [] : ['127.0.0.1'],
    extraHosts: hostConfig.ExtraHosts,
    hostHostsFile: opts.hostNetwork ? await readOr('/etc/hosts', '') : undefined,
  });
  const resolv = buildResolvConf({
    hostResolvConf: await readOr('/etc/resolv.conf', ''),
    hostNetwork: opts.hostNetwork,
    dns: hostConfig.Dns,
    dnsSearch: hostConfig.DnsSearch,
    dnsOptions: hostConfig.DnsOptions,
  });
  await Promise.all([
    writeFile(files.hostsPath, hosts, { mode: 0o644 }),
    writeFile(files.resolvConfPath, resolv, { mode: 0o644 }),
    writeFile(files.hostnamePath, buildHostnameFile(opts.hostname), { mode: 0o644 }),
  ]);
}

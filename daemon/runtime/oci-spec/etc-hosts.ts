// The container's /etc/hosts, as libnetwork writes it: localhost and the IPv6 names, the
// ExtraHosts, then the container's own name on each of its addresses. With the host's network
// the host's own file is the base instead of the defaults.
import { isIP } from 'node:net';
import { InvalidParameterError } from '../../api/errors';

const DEFAULT_HOSTS: [string, string][] = [
  ['127.0.0.1', 'localhost'],
  ['::1', 'localhost ip6-localhost ip6-loopback'],
  ['fe00::0', 'ip6-localnet'],
  ['ff00::0', 'ip6-mcastprefix'],
  ['ff02::1', 'ip6-allnodes'],
  ['ff02::2', 'ip6-allrouters'],
];

export const HOST_GATEWAY = 'host-gateway';

export interface ExtraHost {
  name: string;
  ip: string;
}

/** `name:ip` (the IP may hold colons); `host-gateway` is replaced by the given gateway address. */
export function parseExtraHost(entry: string, hostGatewayIp?: string): ExtraHost {
  const colon = entry.indexOf(':');
  if (colon <= 0) throw new InvalidParameterError(`bad format for add-host: ${JSON.stringify(entry)}`);
  const name = entry.slice(0, colon);
  let ip = entry.slice(colon + 1);
  if (ip === HOST_GATEWAY) {
    if (!hostGatewayIp) throw new InvalidParameterError('unable to derive the IP value for host-gateway');
    ip = hostGatewayIp;
  }
  if (isIP(ip) === 0)
    throw new InvalidParameterError(`invalid IP address in add-host: ${JSON.stringify(ip)}`);
  return { name, ip };
}

export function validateExtraHosts(entries: string[] | null | undefined): void {
  for (const entry of entries ?? []) parseExtraHost(entry, '127.0.0.1');
}

export interface HostsFileOptions {
  hostname: string;
  domainname?: string;
  /** The container's own addresses on its networks. */
  addresses?: string[];
  extraHosts?: string[] | null;
  hostGatewayIp?: string;
  /** The host's /etc/hosts, used as the base for containers on the host's network. */
  hostHostsFile?: string;
}

export function buildHostsFile(options: HostsFileOptions): string {
  const lines: string[] = [];
  if (options.hostHostsFile !== undefined) {
    lines.push(options.hostHostsFile.replace(/\n$/, ''));
  } else {
    for (const [ip, names] of DEFAULT_HOSTS) lines.push(`${ip}\t${names}`);
  }
  for (const entry of options.extraHosts ?? []) {
    const { name, ip } = parseExtraHost(entry, options.hostGatewayIp);
    lines.push(`${ip}\t${name}`);
  }
  const names = options.domainname
    ? `${options.hostname}.${options.domainname} ${options.hostname}`
    : options.hostname;
  for (const ip of options.addresses ?? []) lines.push(`${ip}\t${names}`);
  return `${lines.join('\n')}\n`;
}

/** /etc/hostname holds the hostname alone, as dockerd writes it. */
export function buildHostnameFile(hostname: string): string {
  return `${hostname}\n`;
}

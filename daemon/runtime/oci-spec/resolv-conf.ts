// The container's /etc/resolv.conf from the host's, as libnetwork builds it: on the host's
// network a copy; otherwise localhost nameservers (unreachable from the container's own
// network namespace) are removed, with Google's public servers when none remain. Dns,
// DnsSearch and DnsOptions each replace their part of the host's file.
import { isIP } from 'node:net';
import { InvalidParameterError } from '../../api/errors';

const DEFAULT_IPV4_DNS = ['8.8.8.8', '8.8.4.4'];
const DEFAULT_IPV6_DNS = ['2001:4860:4860::8888', '2001:4860:4860::8844'];

export interface ResolvConfOptions {
  /** The host's /etc/resolv.conf content. */
  hostResolvConf: string;
  hostNetwork: boolean;
  dns?: string[] | null;
  dnsSearch?: string[] | null;
  dnsOptions?: string[] | null;
  ipv6?: boolean;
}

function directives(content: string, keyword: string): string[][] {
  return content
    .split('\n')
    .map((line) =>
      line
        .replace(/[#;].*$/, '')
        .trim()
        .split(/\s+/),
    )
    .filter((fields) => fields[0] === keyword)
    .map((fields) => fields.slice(1));
}

export function nameservers(content: string): string[] {
  return directives(content, 'nameserver').flatMap((fields) => (fields.length > 0 ? [fields[0]] : []));
}

/** Like resolv.conf itself, the last search or options line wins. */
function lastDirective(content: string, keyword: string): string[] {
  return directives(content, keyword).at(-1) ?? [];
}

function isLocalhost(address: string): boolean {
  return /^127\./.test(address) || address === '::1';
}

export function validateDns(dns: string[] | null | undefined): void {
  for (const address of dns ?? []) {
    if (isIP(address) === 0) throw new InvalidParameterError(`${address} is not an ip address`);
  }
}

function build(search: string[], servers: string[], options: string[]): string {
  const lines: string[] = [];
  if (search.length > 0 && search.join(' ').trim() !== '.') lines.push(`search ${search.join(' ')}`);
  for (const server of servers) lines.push(`nameserver ${server}`);
  if (options.length > 0) lines.push(`options ${options.join(' ')}`);
  return `${lines.join('\n')}\n`;
}

/** Drops localhost (and, without IPv6, IPv6) nameserver lines, keeping everything else. */
function filterHostFile(content: string, ipv6: boolean): string {
  const kept = content.split('\n').filter((line) => {
    const fields = line.trim().split(/\s+/);
    if (fields[0] !== 'nameserver' || fields.length < 2) return true;
    return !isLocalhost(fields[1]) && (ipv6 || isIP(fields[1]) !== 6);
  });
  let text = kept.join('\n');
  if (nameservers(text).length === 0) {
    const defaults = [...DEFAULT_IPV4_DNS, ...(ipv6 ? DEFAULT_IPV6_DNS : [])];
    const kept = text.replace(/\n*$/, '');
    text = `${kept === '' ? '' : `${kept}\n`}${defaults.map((s) => `nameserver ${s}`).join('\n')}\n`;
  }
  return text.endsWith('\n') ? text : `${text}\n`;
}

export function buildResolvConf(options: ResolvConfOptions): string {
  const host = options.hostResolvConf;
  const custom = !!(options.dns?.length || options.dnsSearch?.length || options.dnsOptions?.length);
  if (custom) {
    return build(
      options.dnsSearch?.length ? options.dnsSearch : lastDirective(host, 'search'),
      options.dns?.length ? options.dns : nameservers(host),
      options.dnsOptions?.length ? options.dnsOptions : lastDirective(host, 'options'),
    );
  }
  if (options.hostNetwork) return host.endsWith('\n') || host === '' ? host : `${host}\n`;
  return filterHostFile(host, !!options.ipv6);
}

// The create-network dialog's fields turned into a POST /networks/create body, as `docker network
// create` would: subnet, gateway and IP range in one IPAM config (an IPv6 subnet and gateway in a
// second), labels and driver options as KEY=VALUE lines. Every wrong field is named at once.
import type { NetworkCreateBody } from '../../api/engine-types';
import { FormErrors, keyValues } from '../../app/ui/form-input';

export interface NetworkForm {
  name: string;
  driver: 'bridge' | 'overlay';
  subnet: string;
  gateway: string;
  ipRange: string;
  internal: boolean;
  attachable: boolean;
  ipv6: boolean;
  /** With ipv6: the engine has no default IPv6 pool (as dockerd), so the subnet is given. */
  subnet6: string;
  gateway6: string;
  labels: string;
  options: string;
}

export const emptyNetworkForm: NetworkForm = {
  name: '',
  driver: 'bridge',
  subnet: '',
  gateway: '',
  ipRange: '',
  internal: false,
  attachable: false,
  ipv6: false,
  subnet6: '',
  gateway6: '',
  labels: '',
  options: '',
};

const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const isIpv4 = (s: string) => ipv4.test(s) && s.split('.').every((o) => Number(o) <= 255);
const isCidr = (s: string) => {
  const [ip, len, extra] = s.split('/');
  return extra === undefined && isIpv4(ip) && /^\d{1,2}$/.test(len ?? '') && Number(len) <= 32;
};

/** A well-formed IPv6 address: hex groups, one `::` at most; the engine checks the rest. */
const isIpv6 = (s: string) => {
  const halves = s.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((h) => (h ? h.split(':') : []));
  return (
    groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g)) &&
    (halves.length === 2 ? groups.length < 8 : groups.length === 8)
  );
};
const isCidr6 = (s: string) => {
  const [ip, len, extra] = s.split('/');
  return extra === undefined && isIpv6(ip) && /^\d{1,3}$/.test(len ?? '') && Number(len) <= 128;
};

/** The IPv6 config of the body, with what is wrong with it added to `problems`. */
function ipv6Config(f: NetworkForm, problems: string[]): { Subnet: string; Gateway?: string } | undefined {
  const subnet6 = f.subnet6.trim();
  const gateway6 = f.gateway6.trim();
  if (!f.ipv6) return undefined;
  if (!subnet6)
    problems.push('IPv6 needs an IPv6 subnet, such as fd00:1::/64: the engine has no default one');
  else if (!isCidr6(subnet6))
    problems.push(`IPv6 subnet "${subnet6}" is not an IPv6 CIDR such as fd00:1::/64`);
  if (gateway6 && !isIpv6(gateway6)) problems.push(`IPv6 gateway "${gateway6}" is not an IPv6 address`);
  return { Subnet: subnet6, ...(gateway6 && { Gateway: gateway6 }) };
}

export function networkBody(f: NetworkForm): NetworkCreateBody {
  const problems: string[] = [];
  const name = f.name.trim();
  if (!name) problems.push('a name is required');
  else if (!/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(name))
    problems.push(`name "${name}" may hold only letters, digits, "_", "." and "-"`);
  const subnet = f.subnet.trim();
  const gateway = f.gateway.trim();
  const ipRange = f.ipRange.trim();
  if (subnet && !isCidr(subnet))
    problems.push(`subnet "${subnet}" is not an IPv4 CIDR such as 172.30.0.0/24`);
  if (gateway && !isIpv4(gateway)) problems.push(`gateway "${gateway}" is not an IPv4 address`);
  if (ipRange && !isCidr(ipRange)) problems.push(`IP range "${ipRange}" is not an IPv4 CIDR`);
  if ((gateway || ipRange) && !subnet) problems.push('a gateway or an IP range needs a subnet');
  const v6 = ipv6Config(f, problems);
  const labels = keyValues(f.labels, 'label', problems);
  const options = keyValues(f.options, 'driver option', problems);
  if (problems.length) throw new FormErrors(problems);
  const configs = [
    ...(subnet
      ? [{ Subnet: subnet, ...(gateway && { Gateway: gateway }), ...(ipRange && { IPRange: ipRange }) }]
      : []),
    ...(v6 ? [v6] : []),
  ];
  return {
    Name: name,
    CheckDuplicate: true,
    Driver: f.driver,
    Internal: f.internal,
    Attachable: f.attachable,
    EnableIPv6: f.ipv6,
    IPAM: configs.length ? { Driver: 'default', Config: configs } : undefined,
    Labels: labels,
    Options: options,
  };
}

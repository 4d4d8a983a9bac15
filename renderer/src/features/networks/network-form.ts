// The create-network dialog's fields turned into a POST /networks/create body, as `docker network
// create` would: subnet, gateway and IP range in one IPAM config, labels and driver options as
// KEY=VALUE lines. Every wrong field is named at once.
import type { NetworkCreateBody } from '../../api/engine-types';
import { FormErrors, keyValues } from '../containers/create-body';

export interface NetworkForm {
  name: string;
  driver: 'bridge' | 'overlay';
  subnet: string;
  gateway: string;
  ipRange: string;
  internal: boolean;
  attachable: boolean;
  ipv6: boolean;
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
  labels: '',
  options: '',
};

const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const isIpv4 = (s: string) => ipv4.test(s) && s.split('.').every((o) => Number(o) <= 255);
const isCidr = (s: string) => {
  const [ip, len, extra] = s.split('/');
  return extra === undefined && isIpv4(ip) && /^\d{1,2}$/.test(len ?? '') && Number(len) <= 32;
};

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
  const labels = keyValues(f.labels, 'label', problems);
  const options = keyValues(f.options, 'driver option', problems);
  if (problems.length) throw new FormErrors(problems);
  return {
    Name: name,
    CheckDuplicate: true,
    Driver: f.driver,
    Internal: f.internal,
    Attachable: f.attachable,
    EnableIPv6: f.ipv6,
    IPAM: subnet
      ? {
          Driver: 'default',
          Config: [
            { Subnet: subnet, ...(gateway && { Gateway: gateway }), ...(ipRange && { IPRange: ipRange }) },
          ],
        }
      : undefined,
    Labels: labels,
    Options: options,
  };
}

// Hostname and Domainname of the create body: RFC 1123 validation (63 bytes at most, as
// dockerd) and older clients' split of a dotted Hostname into Hostname + Domainname.
import { InvalidParameterError } from '../../api/errors';

const label = '([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const hostnamePattern = new RegExp(`^(${label}\\.)*${label}$`);

export function validateHostname(hostname: string): void {
  if (hostname === '') return;
  if (hostname.length > 63 || !hostnamePattern.test(hostname)) {
    throw new InvalidParameterError(`invalid hostname format: ${hostname}`);
  }
}

export interface HostIdentity {
  Hostname: string;
  Domainname: string;
}

/** Older clients' reading: a dotted Hostname without Domainname is split at its first dot. */
export function normalizeHostname(identity: Partial<HostIdentity>, splitDotted: boolean): HostIdentity {
  const hostname = identity.Hostname ?? '';
  const domainname = identity.Domainname ?? '';
  if (splitDotted && domainname === '' && hostname.includes('.')) {
    const dot = hostname.indexOf('.');
    return { Hostname: hostname.slice(0, dot), Domainname: hostname.slice(dot + 1) };
  }
  return { Hostname: hostname, Domainname: domainname };
}

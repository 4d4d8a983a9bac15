// Hostname and Domainname of the create body: RFC 1123 validation (63 bytes at most, as
// dockerd) and the pre-1.24 split of a dotted Hostname into Hostname + Domainname.
import { InvalidParameterError } from '../../api/errors';
import { apiVersionBefore } from './api-version';

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

/** Before 1.24 a dotted Hostname without Domainname was split at its first dot. */
export function normalizeHostname(identity: Partial<HostIdentity>, apiVersion: string): HostIdentity {
  const hostname = identity.Hostname ?? '';
  const domainname = identity.Domainname ?? '';
  if (apiVersionBefore(apiVersion, '1.24') && domainname === '' && hostname.includes('.')) {
    const dot = hostname.indexOf('.');
    return { Hostname: hostname.slice(0, dot), Domainname: hostname.slice(dot + 1) };
  }
  return { Hostname: hostname, Domainname: domainname };
}

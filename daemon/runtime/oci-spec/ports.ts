// Port keys (`80`, `80/tcp`, `53/udp`) of ExposedPorts and PortBindings, and HostPort values.
import { InvalidParameterError } from '../../api/errors';
import type { PortMap, PortSet } from '../../api/container-types';

const PROTOCOLS = new Set(['tcp', 'udp', 'sctp']);

function validPortNumber(text: string): boolean {
  return /^\d+$/.test(text) && Number(text) <= 65535;
}

function validPortRange(text: string): boolean {
  const [from, to, ...rest] = text.split('-');
  if (rest.length > 0) return false;
  if (to === undefined) return validPortNumber(from);
  return validPortNumber(from) && validPortNumber(to) && Number(from) <= Number(to);
}

function splitProtoPort(key: string): { port: string; proto: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { port: key, proto: 'tcp' } : { port: key.slice(0, slash), proto: key.slice(slash + 1) };
}

function validatePortKey(key: string): void {
  const { port, proto } = splitProtoPort(key);
  if (!validPortRange(port) || !PROTOCOLS.has(proto.toLowerCase())) {
    throw new InvalidParameterError(`invalid port specification: ${JSON.stringify(port)}`);
  }
}

export function validatePorts(
  exposed: PortSet | null | undefined,
  bindings: PortMap | null | undefined,
): void {
  for (const key of Object.keys(exposed ?? {})) validatePortKey(key);
  for (const [key, list] of Object.entries(bindings ?? {})) {
    validatePortKey(key);
    for (const binding of list ?? []) {
      const hostPort = splitProtoPort(binding.HostPort ?? '').port;
      if (hostPort !== '' && !validPortRange(hostPort)) {
        throw new InvalidParameterError(`invalid port specification: ${JSON.stringify(binding.HostPort)}`);
      }
    }
  }
}

// HostConfig.PortBindings and PublishAllPorts turned into the portmap plugin's mappings and the
// Ports map inspect shows: ranges expanded, an empty HostPort given a free ephemeral port, and a
// host port another process (or another container) holds refused with dockerd's message.
import { InvalidParameterError, isSvcError, SystemError } from '../../api/errors';
import type { HostConfig, PortSet } from '../../api/container-types';
import type { PortBindingJson } from '../../api/container-summary-types';
import { probePort } from '../../runtime/cni/port-probe';

type PortMap = Record<string, PortBindingJson[] | null>;

export interface PortMapping {
  hostPort: number;
  containerPort: number;
  protocol: 'tcp' | 'udp';
  hostIP: string;
}

export interface PublishedPorts {
  mappings: PortMapping[];
  /** NetworkSettings.Ports: every exposed or bound port, null where nothing is published. */
  ports: PortMap;
}

function parsePortKey(key: string): { first: number; last: number; protocol: 'tcp' | 'udp' } {
  const m = /^(\d+)(?:-(\d+))?(?:\/(tcp|udp|sctp))?$/.exec(key);
  if (!m) throw new InvalidParameterError(`invalid port specification: ${JSON.stringify(key)}`);
  if (m[3] === 'sctp') throw new InvalidParameterError('sctp ports are not supported by svcd');
  const first = Number(m[1]);
  const last = m[2] ? Number(m[2]) : first;
  if (first < 1 || last > 65535 || last < first)
    throw new InvalidParameterError(`invalid port range: ${key}`);
  return { first, last, protocol: (m[3] as 'tcp' | 'udp' | undefined) ?? 'tcp' };
}

function parseHostPorts(text: string | undefined): { first: number; last: number } | undefined {
  if (!text) return undefined;
  const m = /^(\d+)(?:-(\d+))?$/.exec(text);
  if (!m) throw new InvalidParameterError(`invalid host port: ${JSON.stringify(text)}`);
  return { first: Number(m[1]), last: m[2] ? Number(m[2]) : Number(m[1]) };
}

export async function publishPorts(
  hostConfig: Pick<HostConfig, 'PortBindings' | 'PublishAllPorts'>,
  exposed: PortSet | null | undefined,
  /** Host ports already published by other containers of this engine, as `proto/ip/port`. */
  taken: Set<string>,
  /** Whether the port is free (or a free one for 0), on the host where ports are bound. */
  probe: typeof probePort = probePort,
): Promise<PublishedPorts> {
  const ports: PortMap = {};
  const mappings: PortMapping[] = [];
  const keys = new Set([...Object.keys(exposed ?? {}), ...Object.keys(hostConfig.PortBindings ?? {})]);
  for (const key of keys) {
    const { first, last, protocol } = parsePortKey(key);
    let bindings = hostConfig.PortBindings?.[key] ?? null;
    if ((!bindings || bindings.length === 0) && hostConfig.PublishAllPorts)
      bindings = [{ HostIp: '', HostPort: '' }];
    for (let port = first; port <= last; port++) {
      const portKey = `${port}/${protocol}`;
      if (!bindings || bindings.length === 0) {
        ports[portKey] ??= null;
        continue;
      }
      for (const b of bindings) {
        const hostIP = b.HostIp || '0.0.0.0';
        const range = parseHostPorts(b.HostPort);
        const wanted = range ? range.first + (port - first) : 0;
        if (range && wanted > range.last)
          throw new InvalidParameterError(`host port range ${b.HostPort} is smaller than ${key}`);
        const label = `${hostIP}:${wanted}`;
        if (wanted && taken.has(`${protocol}/${hostIP}/${wanted}`)) {
          throw new SystemError(`Bind for ${label} failed: port is already allocated`);
        }
        let hostPort: number;
        try {
          hostPort = await probe(protocol, hostIP, wanted);
        } catch (err) {
          // A probe's own answer (a rootless one's) already says what is wrong.
          if (isSvcError(err)) throw err;
          const code = (err as NodeJS.ErrnoException).code;
          const reason = code === 'EADDRINUSE' ? 'port is already allocated' : (err as Error).message;
          throw new SystemError(`Bind for ${label} failed: ${reason}`);
        }
        taken.add(`${protocol}/${hostIP}/${hostPort}`);
        mappings.push({ hostPort, containerPort: port, protocol, hostIP: b.HostIp ?? '' });
        const published = (ports[portKey] ??= []);
        published.push({ HostIp: hostIP, HostPort: String(hostPort) });
      }
    }
  }
  return { mappings, ports };
}

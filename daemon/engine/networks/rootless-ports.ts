// Published ports of a rootless svcd. portmap's rules would live in rootlesskit's network
// namespace, which nothing on the host reaches; instead rootlesskit listens on the host's address
// and port and forwards each connection to the container's address and port in the namespace.
// Its ports go with rootlesskit, so with this svcd: what they are is kept in memory only.
import { InvalidParameterError, SystemError } from '../../api/errors';
import { probePort } from '../../runtime/cni/port-probe';
import {
  RootlessKitPortError,
  type RootlessKitPorts,
  type RootlessKitPortSpec,
} from '../../runtime/rootlesskit/port-api';
import type { PortMapping } from './published-ports';

/** Tries of -P's pick when the port picked is taken on the host. */
const PICKS = 10;

const inUse = (err: unknown) =>
  err instanceof RootlessKitPortError && /address already in use|conflict with ID/.test(err.message);

/** rootlesskit's refusal told as dockerd tells a bind failure, or what the host allows. */
function bindError(hostIP: string, hostPort: number, err: unknown): Error {
  const label = `${hostIP || '0.0.0.0'}:${hostPort}`;
  if (!(err instanceof RootlessKitPortError)) return err as Error;
  const privileged = /cannot expose privileged port \d+.*\(currently (\d+)\)/.exec(err.message);
  if (privileged || /permission denied/.test(err.message)) {
    const start = privileged?.[1] ?? '1024';
    return new InvalidParameterError(
      `rootless svcd cannot publish ${label}: this host lets users other than root bind ports from ${start} on (net.ipv4.ip_unprivileged_port_start=${start}); choose a host port from ${start} on, or as root allow it with sysctl net.ipv4.ip_unprivileged_port_start=${hostPort}`,
    );
  }
  if (inUse(err)) return new SystemError(`Bind for ${label} failed: port is already allocated`);
  return new SystemError(`Bind for ${label} failed: ${err.message}`);
}

function specOf(
  protocol: 'tcp' | 'udp',
  hostIP: string,
  hostPort: number,
  childIP: string,
  childPort: number,
): RootlessKitPortSpec {
  const v6 = hostIP.includes(':');
  return {
    proto: `${protocol}${v6 ? 6 : 4}`,
    parentIP: hostIP === '0.0.0.0' || hostIP === '::' ? '' : hostIP,
    parentPort: hostPort,
    childIP,
    childPort,
  };
}

export class RootlessPorts {
  private readonly byContainer = new Map<string, number[]>();

  constructor(private readonly api: RootlessKitPorts) {}

  /**
   * publishPorts' probe: the host's ports cannot be bound from the namespace, so rootlesskit
   * binds the port on the host for a moment. For -P a free port of the namespace's ephemeral
   * range is tried, and another while the host has it taken.
   */
  readonly probe: typeof probePort = async (protocol, hostIP, port) => {
    for (let pick = 1; ; pick++) {
      const hostPort = port || (await probePort(protocol, '0.0.0.0', 0));
      try {
        await this.api.remove(await this.api.add(specOf(protocol, hostIP, hostPort, '127.0.0.1', hostPort)));
        return hostPort;
      } catch (err) {
        if (!port && pick < PICKS && inUse(err)) continue;
        throw bindError(hostIP, hostPort, err);
      }
    }
  };

  /** Each mapping from the host to `childIP` (the container's address on its first network). */
  async forward(containerId: string, mappings: PortMapping[], childIP: string): Promise<void> {
    const ids = this.byContainer.get(containerId) ?? [];
    this.byContainer.set(containerId, ids);
    for (const m of mappings) {
      const spec = specOf(m.protocol, m.hostIP, m.hostPort, childIP, m.containerPort);
      ids.push(
        await this.api
          .add(spec)
          .catch((err: unknown) => Promise.reject(bindError(m.hostIP, m.hostPort, err))),
      );
    }
  }

  /** Stops listening on the container's host ports; every one is tried, the first error told. */
  async release(containerId: string): Promise<void> {
    const ids = this.byContainer.get(containerId) ?? [];
    this.byContainer.delete(containerId);
    let first: unknown;
    for (const id of ids) await this.api.remove(id).catch((err: unknown) => (first ??= err));
    if (first) throw first;
  }
}

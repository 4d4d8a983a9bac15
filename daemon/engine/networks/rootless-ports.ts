// Published ports of a rootless svcd. portmap's rules would live in rootlesskit's network
// namespace, which nothing on the host reaches; instead rootlesskit listens on the host's address
// and port and forwards each connection to the container's address and port in the namespace.
// Its ports go with rootlesskit, so with this svcd: what they are is kept in memory only.
import { InvalidParameterError, SystemError } from '../../api/errors';
import { probePort } from '../../runtime/cni/port-probe';
import { RootlessKitPortError, type RootlessKitPorts } from '../../runtime/rootlesskit/port-api';
import type { PortMapping } from './published-ports';

/** rootlesskit's refusal told as dockerd tells a bind failure, or what the host allows. */
function bindError(m: PortMapping, err: unknown): Error {
  const label = `${m.hostIP || '0.0.0.0'}:${m.hostPort}`;
  if (!(err instanceof RootlessKitPortError)) return err as Error;
  const privileged = /cannot expose privileged port \d+.*\(currently (\d+)\)/.exec(err.message);
  if (privileged || /permission denied/.test(err.message)) {
    const start = privileged?.[1] ?? '1024';
    return new InvalidParameterError(
      `rootless svcd cannot publish ${label}: this host lets users other than root bind ports from ${start} on (net.ipv4.ip_unprivileged_port_start=${start}); choose a host port from ${start} on, or as root allow it with sysctl net.ipv4.ip_unprivileged_port_start=${m.hostPort}`,
    );
  }
  if (/address already in use|conflict with ID/.test(err.message))
    return new SystemError(`Bind for ${label} failed: port is already allocated`);
  return new SystemError(`Bind for ${label} failed: ${err.message}`);
}

export class RootlessPorts {
  private readonly byContainer = new Map<string, number[]>();

  constructor(private readonly api: RootlessKitPorts) {}

  /**
   * publishPorts' probe: the host's ports cannot be bound from the namespace, so a wanted port
   * is taken as it is (rootlesskit's bind tells) and for none, a free port of the namespace's
   * ephemeral range stands for one of the host's.
   */
  readonly candidate: typeof probePort = async (protocol, _hostIP, port) =>
    port || probePort(protocol, '0.0.0.0', 0);

  /** Each mapping from the host to `childIP` (the container's address on its first network). */
  async forward(containerId: string, mappings: PortMapping[], childIP: string): Promise<void> {
    const ids = this.byContainer.get(containerId) ?? [];
    this.byContainer.set(containerId, ids);
    for (const m of mappings) {
      const v6 = m.hostIP.includes(':');
      const spec = {
        proto: `${m.protocol}${v6 ? '6' : '4'}`,
        parentIP: m.hostIP === '0.0.0.0' || m.hostIP === '::' ? '' : m.hostIP,
        parentPort: m.hostPort,
        childIP,
        childPort: m.containerPort,
      } as const;
      ids.push(await this.api.add(spec).catch((err: unknown) => Promise.reject(bindError(m, err))));
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

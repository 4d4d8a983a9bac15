// Where the running tasks answer: each task's address (the ingress forwards there) and its
// address on each of its networks (its VIPs' backends), learnt from its container, and the
// ingress and VIP tables made from them.
import type { ContainerInspect } from '../../api/container-summary-types';
import type { SwarmService, SwarmTask } from '../../api/swarm-types';
import type { ClusterState } from './cluster-state';
import type { IngressTable } from './ingress-proxy';
import type { VipTable } from './service-vips';

export class TaskEndpoints {
  private readonly addresses = new Map<string, string>();
  private readonly networkAddresses = new Map<string, Map<string, string>>();

  /** `networkName` gives a network's local name by ID (undefined when it is gone). */
  constructor(private readonly networkName: (id: string) => string | undefined) {}

  remember(task: SwarmTask, info: ContainerInspect): void {
    const settings = info.NetworkSettings;
    const ip =
      settings.IPAddress || Object.values(settings.Networks ?? {}).find((n) => n?.IPAddress)?.IPAddress;
    if (ip) this.addresses.set(task.ID, ip);
    const byNetwork = new Map<string, string>();
    for (const networkId of (task.Spec.Networks ?? []).map((n) => n.Target)) {
      const name = this.networkName(networkId);
      const at = name ? settings.Networks?.[name]?.IPAddress : undefined;
      if (at) byNetwork.set(networkId, at);
    }
    this.networkAddresses.set(task.ID, byNetwork);
  }

  forget(taskId: string): void {
    this.addresses.delete(taskId);
    this.networkAddresses.delete(taskId);
  }

  vipTable(state: ClusterState): VipTable {
    return state.services.flatMap((service) =>
      (service.Endpoint.VirtualIPs ?? []).map((v) => ({
        networkId: v.NetworkID,
        vip: v.Addr.split('/')[0],
        backends: runningTasks(state, service).flatMap((t) => {
          const ip = this.networkAddresses.get(t.ID)?.get(v.NetworkID);
          return ip ? [ip] : [];
        }),
      })),
    );
  }

  ingressTable(state: ClusterState): IngressTable {
    const table: IngressTable = new Map();
    for (const service of state.services) {
      const running = runningTasks(state, service);
      for (const p of service.Endpoint.Ports ?? []) {
        if (p.PublishMode !== 'ingress' || !p.PublishedPort || p.Protocol === 'sctp') continue;
        const backends = running.flatMap((t) => {
          const ip = this.addresses.get(t.ID);
          return ip ? [`${ip}:${p.TargetPort}`] : [];
        });
        table.set(`${p.PublishedPort}/${p.Protocol ?? 'tcp'}`, backends);
      }
    }
    return table;
  }
}

const runningTasks = (state: ClusterState, service: SwarmService) =>
  state.tasks.filter((t) => t.ServiceID === service.ID && t.Status.State === 'running');

/** Host-mode ports as a task's PortStatus shows them (the port the engine bound). */
export function hostPorts(service: SwarmService, info: ContainerInspect): SwarmTask['Status']['PortStatus'] {
  const host = (service.Endpoint.Ports ?? []).filter((p) => p.PublishMode === 'host');
  if (!host.length) return {};
  const bound = (info.NetworkSettings.Ports ?? {}) as Record<string, Array<{ HostPort: string }> | null>;
  return {
    Ports: host.map((p) => ({
      ...p,
      PublishedPort: Number(
        bound[`${p.TargetPort}/${p.Protocol ?? 'tcp'}`]?.[0]?.HostPort ?? p.PublishedPort ?? 0,
      ),
    })),
  };
}

// The swarm engine's parts put together: the cluster state, the swarm, its node, services and
// tasks, secrets and configs, and the orchestrator that runs the tasks' containers.
import type { Logger } from '../../lib/logger';
import type { EventsService } from '../events/events-service';
import type { SwarmMembership } from '../shared/swarm-membership';
import { Cluster } from './cluster';
import { ClusterStateFile } from './cluster-state';
import { IngressProxy } from './ingress-proxy';
import { NodesService } from './nodes-service';
import { Orchestrator } from './orchestrator';
import { usersOf } from './service-spec';
import { vipName, type VipPort } from './service-vips';
import { ServicesService } from './services-service';
import { SwarmObjects } from './swarm-objects';
import { SwarmService } from './swarm-service';
import type { NodeHost } from './swarm-node';
import { TaskFiles } from './task-files';
import type { TaskContainerPort } from './task-containers';

/** What the swarm needs of the networks engine. */
export interface SwarmNetworksPort extends VipPort {
  /** A network's ID from its name or ID; NotFoundError when there is none. */
  resolve(ref: string): string;
  /** A network's name, undefined when it is gone. */
  nameOf(id: string): string | undefined;
  /** Makes the swarm's `ingress` overlay network (init). */
  createIngress(): Promise<void>;
  /** Removes every overlay network (leave). */
  removeOverlays(): Promise<void>;
}

export interface SwarmEngineDeps {
  /** Read first (openCluster), so that the networks could be given its membership view. */
  cluster: Cluster;
  events: EventsService;
  host: NodeHost;
  containers: TaskContainerPort;
  networks: SwarmNetworksPort;
  log: Logger;
}

export interface SwarmEngine {
  swarm: SwarmService;
  nodes: NodesService;
  services: ServicesService;
  secrets: SwarmObjects;
  configs: SwarmObjects;
  /** Stops the orchestrator; the task containers keep running, as every container does. */
  close(): Promise<void>;
}

/** The cluster state as this engine left it (in a swarm or not, locked or not). */
export async function openCluster(dataRoot: string, events: EventsService): Promise<Cluster> {
  const cluster = new Cluster(new ClusterStateFile(dataRoot), events);
  await cluster.init();
  return cluster;
}

/** The view of the cluster the networks are given (shared/swarm-membership.ts). */
export function swarmMembershipOf(cluster: Cluster): SwarmMembership {
  return {
    active: () => cluster.active && !cluster.locked,
    nameOn: (networkId, name) => (cluster.locked ? undefined : vipName(cluster.peek(), networkId, name)),
  };
}

export function createSwarmEngine(deps: SwarmEngineDeps): SwarmEngine {
  const { cluster } = deps;
  const orchestrator = new Orchestrator({
    cluster,
    containers: deps.containers,
    files: new TaskFiles(cluster.file.filesDir()),
    networkName: (id) => deps.networks.nameOf(id),
    ingress: new IngressProxy(deps.log),
    vips: deps.networks,
    log: deps.log,
  });
  cluster.onChange = () => orchestrator.wake();
  const swarm = new SwarmService({
    cluster,
    host: deps.host,
    setUp: () => deps.networks.createIngress(),
    teardown: async () => {
      // The services go first, so that no pass starts their tasks again meanwhile.
      await cluster.write((state) => {
        state.services.length = 0;
        return orchestrator.removeAll(state);
      }, false);
      await deps.networks.removeOverlays();
    },
  });
  orchestrator.start();
  return {
    swarm,
    nodes: new NodesService(cluster),
    services: new ServicesService({
      cluster,
      containers: deps.containers,
      resolveNetwork: (ref) => deps.networks.resolve(ref),
      vips: deps.networks,
    }),
    secrets: new SwarmObjects(cluster, 'secret', (state, id) => usersOf(state, 'secret', id)),
    configs: new SwarmObjects(cluster, 'config', (state, id) => usersOf(state, 'config', id)),
    close: () => orchestrator.close(),
  };
}

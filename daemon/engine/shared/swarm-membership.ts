// What the engines below the swarm ask of it: whether this engine is in a swarm (overlay networks
// exist only then) and what a name is on a swarm network (a service's virtual IP). svcd reads the
// cluster state before the networks and hands them this view, so no late closure is needed.
import type { KnownName } from '../../runtime/dns/name-server';

export interface SwarmMembership {
  /** In a swarm and unlocked: `docker info`'s LocalNodeState is `active`. */
  active(): boolean;
  /** What a name is on a swarm network (a service's VIP), for that network's name server. */
  nameOn(networkId: string, name: string): KnownName | undefined;
}

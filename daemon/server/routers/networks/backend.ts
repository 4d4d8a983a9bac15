// What the networks router needs from the engine.
import type { EndpointSettings } from '../../../api/container-types';
import type {
  NetworkCreateBody,
  NetworkCreateResponse,
  NetworkFilters,
  NetworkPruneResponse,
  NetworkResource,
} from '../../../api/network-types';

export interface NetworksBackend {
  list(filters: NetworkFilters): NetworkResource[];
  inspect(ref: string): NetworkResource;
  create(body: NetworkCreateBody): Promise<NetworkCreateResponse>;
  remove(ref: string): Promise<void>;
  prune(filters: NetworkFilters): Promise<NetworkPruneResponse>;
}

/** Connect and disconnect change containers, so the containers engine does them. */
export interface NetworkMembershipBackend {
  connectNetwork(network: string, container: string, settings: EndpointSettings | null): Promise<void>;
  disconnectNetwork(network: string, container: string, force: boolean): Promise<void>;
}

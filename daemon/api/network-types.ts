// Networks as the Engine API describes them, and the requests the networks router hands its
// backend.
import type { EndpointSettings } from './container-types';
import type { Filters } from './filters';

export interface IpamConfig {
  Subnet?: string;
  IPRange?: string;
  Gateway?: string;
  AuxiliaryAddresses?: Record<string, string> | null;
}

export interface Ipam {
  Driver: string;
  Options: Record<string, string> | null;
  Config: IpamConfig[] | null;
}

export interface NetworkContainer {
  Name: string;
  EndpointID: string;
  MacAddress: string;
  IPv4Address: string;
  IPv6Address: string;
}

export interface NetworkResource {
  Name: string;
  Id: string;
  Created: string;
  Scope: string;
  Driver: string;
  EnableIPv6: boolean;
  IPAM: Ipam;
  Internal: boolean;
  Attachable: boolean;
  Ingress: boolean;
  ConfigFrom: { Network: string };
  ConfigOnly: boolean;
  Containers: Record<string, NetworkContainer>;
  Options: Record<string, string>;
  Labels: Record<string, string>;
}

/** POST /networks/create's body. */
export interface NetworkCreateBody {
  Name?: string;
  CheckDuplicate?: boolean;
  Driver?: string;
  Internal?: boolean;
  Attachable?: boolean;
  Ingress?: boolean;
  EnableIPv6?: boolean;
  IPAM?: { Driver?: string; Options?: Record<string, string> | null; Config?: IpamConfig[] | null } | null;
  Options?: Record<string, string> | null;
  Labels?: Record<string, string> | null;
}

export interface NetworkCreateResponse {
  Id: string;
  Warning: string;
}

export interface NetworkConnectBody {
  Container: string;
  EndpointConfig?: EndpointSettings | null;
}

export interface NetworkDisconnectBody {
  Container: string;
  Force?: boolean;
}

export interface NetworkPruneResponse {
  NetworksDeleted: string[] | null;
}

export type NetworkFilters = Filters;

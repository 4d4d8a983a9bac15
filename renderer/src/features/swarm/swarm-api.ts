// The swarm parts of the Engine API (1.41) the Swarm screen uses, on the selected engine: the
// shapes are the engine's (only the fields shown or sent back), the calls through the gateway.
import { E } from '../../api/engine-target';
import { getJson, query, request, sendJson } from '../../api/gateway';

const enc = encodeURIComponent;

export interface ServiceSpec {
  Name: string;
  Labels?: Record<string, string>;
  TaskTemplate: {
    ContainerSpec: { Image: string; Command?: string[]; Args?: string[]; Env?: string[]; TTY?: boolean };
    [k: string]: unknown;
  };
  Mode: { Replicated?: { Replicas: number }; Global?: object };
  EndpointSpec?: { Ports?: PortConfig[] };
  [k: string]: unknown;
}

export interface PortConfig {
  Protocol?: string;
  TargetPort: number;
  PublishedPort?: number;
  PublishMode?: string;
}

export interface Service {
  ID: string;
  Version: { Index: number };
  Spec: ServiceSpec;
  PreviousSpec?: ServiceSpec;
  Endpoint?: { Ports?: PortConfig[] };
  ServiceStatus?: { RunningTasks: number; DesiredTasks: number };
  UpdateStatus?: { State: string; Message?: string };
}

export interface Task {
  ID: string;
  ServiceID: string;
  Slot?: number;
  NodeID?: string;
  DesiredState: string;
  CreatedAt: string;
  Status: { State: string; Message?: string; Err?: string; Timestamp: string };
}

export interface SwarmNode {
  ID: string;
  Description: { Hostname: string; Engine?: { EngineVersion: string } };
  Spec: { Role: string; Availability: string };
  Status: { State: string; Addr?: string };
  ManagerStatus?: { Leader?: boolean; Reachability: string };
}

/** A secret or a config: the engine never gives a secret's data back; a config's it does. */
export interface SwarmObject {
  ID: string;
  CreatedAt: string;
  Spec: { Name: string; Labels?: Record<string, string> };
}

export type ObjectKind = 'secrets' | 'configs';

/** Text as the base64 the API takes for a secret's or a config's data. */
function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

export const swarm = {
  services: () => getJson<Service[]>(`${E()}/services${query({ status: true })}`),
  service: (id: string) => getJson<Service>(`${E()}/services/${enc(id)}`),
  createService: (spec: ServiceSpec) => sendJson<{ ID: string }>('POST', `${E()}/services/create`, spec),
  /** A new spec for the service at its version (the engine refuses a stale one). */
  updateService: (s: Service, spec: ServiceSpec) =>
    sendJson('POST', `${E()}/services/${enc(s.ID)}/update${query({ version: s.Version.Index })}`, spec),
  /** Back to the spec before the last update, as `docker service rollback`. */
  rollbackService: (s: Service) =>
    sendJson(
      'POST',
      `${E()}/services/${enc(s.ID)}/update${query({ version: s.Version.Index, rollback: 'previous' })}`,
      s.Spec,
    ),
  removeService: (id: string) => sendJson('DELETE', `${E()}/services/${enc(id)}`),
  serviceLogs: (id: string, signal: AbortSignal) =>
    request(
      `${E()}/services/${enc(id)}/logs${query({ stdout: true, stderr: true, timestamps: true, follow: true, tail: 500 })}`,
      { signal },
    ),
  tasks: (serviceId: string) =>
    getJson<Task[]>(`${E()}/tasks${query({ filters: JSON.stringify({ service: [serviceId] }) })}`),
  nodes: () => getJson<SwarmNode[]>(`${E()}/nodes`),
  objects: (kind: ObjectKind) => getJson<SwarmObject[]>(`${E()}/${kind}`),
  createObject: (kind: ObjectKind, name: string, data: string) =>
    sendJson<{ ID: string }>('POST', `${E()}/${kind}/create`, { Name: name, Data: base64(data) }),
  removeObject: (kind: ObjectKind, id: string) => sendJson('DELETE', `${E()}/${kind}/${enc(id)}`),
};

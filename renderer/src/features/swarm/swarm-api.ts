// The swarm parts of the Engine API (1.41) the Swarm screen uses, on the selected engine: the
// shapes are daemon/api's, the calls through the gateway.
import { E } from '../../api/engine-target';
import { getJson, query, request, sendJson } from '../../api/gateway';
import type {
  IdResponse,
  ServiceCreateResponse,
  ServiceSpec,
  SwarmConfig,
  SwarmNode,
  SwarmSecret,
  SwarmService,
  SwarmTask,
} from '../../../../daemon/api/swarm-types';

const enc = encodeURIComponent;

/** A secret or a config: the engine never gives a secret's data back; a config's it does. */
export type SwarmObject = SwarmSecret | SwarmConfig;

export type ObjectKind = 'secrets' | 'configs';

/** Text as the base64 the API takes for a secret's or a config's data. */
function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

export const swarm = {
  services: () => getJson<SwarmService[]>(`${E()}/services${query({ status: true })}`),
  service: (id: string) => getJson<SwarmService>(`${E()}/services/${enc(id)}`),
  createService: (spec: ServiceSpec) =>
    sendJson<ServiceCreateResponse>('POST', `${E()}/services/create`, spec),
  /** A new spec for the service at its version (the engine refuses a stale one). */
  updateService: (s: SwarmService, spec: ServiceSpec) =>
    sendJson('POST', `${E()}/services/${enc(s.ID)}/update${query({ version: s.Version.Index })}`, spec),
  /**
   * Back to the spec before the last update, as `docker service rollback`: at the version read
   * just before, since the engine moves it on by itself (an update's status going to completed).
   */
  rollbackService: async (id: string) => {
    const s = await swarm.service(id);
    return sendJson(
      'POST',
      `${E()}/services/${enc(s.ID)}/update${query({ version: s.Version.Index, rollback: 'previous' })}`,
      s.Spec,
    );
  },
  removeService: (id: string) => sendJson('DELETE', `${E()}/services/${enc(id)}`),
  serviceLogs: (id: string, signal: AbortSignal) =>
    request(
      `${E()}/services/${enc(id)}/logs${query({ stdout: true, stderr: true, timestamps: true, follow: true, tail: 500 })}`,
      { signal },
    ),
  tasks: (serviceId: string) =>
    getJson<SwarmTask[]>(`${E()}/tasks${query({ filters: JSON.stringify({ service: [serviceId] }) })}`),
  nodes: () => getJson<SwarmNode[]>(`${E()}/nodes`),
  objects: (kind: ObjectKind) => getJson<SwarmObject[]>(`${E()}/${kind}`),
  createObject: (kind: ObjectKind, name: string, data: string) =>
    sendJson<IdResponse>('POST', `${E()}/${kind}/create`, { Name: name, Data: base64(data) }),
  removeObject: (kind: ObjectKind, id: string) => sendJson('DELETE', `${E()}/${kind}/${enc(id)}`),
};

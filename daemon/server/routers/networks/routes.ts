import type { Route } from '../../router';
import type { NetworkMembershipBackend, NetworksBackend } from './backend';
import { networksHandlers } from './handlers';

export function networksRoutes(backend: NetworksBackend, members: NetworkMembershipBackend): Route[] {
  const h = networksHandlers(backend, members);
  return [
    { method: 'GET', path: '/networks', handler: h.list, minVersion: '1.21' },
    { method: 'POST', path: '/networks/create', handler: h.create, minVersion: '1.21' },
    { method: 'POST', path: '/networks/prune', handler: h.prune, minVersion: '1.25' },
    { method: 'GET', path: '/networks/{id}', handler: h.inspect, minVersion: '1.21' },
    { method: 'DELETE', path: '/networks/{id}', handler: h.remove, minVersion: '1.21' },
    { method: 'POST', path: '/networks/{id}/connect', handler: h.connect, minVersion: '1.21' },
    { method: 'POST', path: '/networks/{id}/disconnect', handler: h.disconnect, minVersion: '1.21' },
  ];
}

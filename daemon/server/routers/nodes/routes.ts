import type { Route } from '../../router';
import type { NodesBackend } from './backend';
import { nodesHandlers } from './handlers';

export function nodesRoutes(backend: NodesBackend): Route[] {
  const h = nodesHandlers(backend);
  return [
    { method: 'GET', path: '/nodes', handler: h.list, minVersion: '1.24' },
    { method: 'GET', path: '/nodes/{id}', handler: h.inspect, minVersion: '1.24' },
    { method: 'POST', path: '/nodes/{id}/update', handler: h.update, minVersion: '1.24' },
    { method: 'DELETE', path: '/nodes/{id}', handler: h.remove, minVersion: '1.24' },
  ];
}

import type { Route } from '../../router';
import type { VolumesBackend } from './backend';
import { volumesHandlers } from './handlers';

export function volumesRoutes(backend: VolumesBackend): Route[] {
  const h = volumesHandlers(backend);
  return [
    { method: 'GET', path: '/volumes', handler: h.list, minVersion: '1.21' },
    { method: 'POST', path: '/volumes/create', handler: h.create, minVersion: '1.21' },
    { method: 'POST', path: '/volumes/prune', handler: h.prune, minVersion: '1.25' },
    { method: 'GET', path: '/volumes/{name}', handler: h.inspect, minVersion: '1.21' },
    { method: 'DELETE', path: '/volumes/{name}', handler: h.remove, minVersion: '1.21' },
  ];
}

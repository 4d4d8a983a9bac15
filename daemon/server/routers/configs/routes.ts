import type { Route } from '../../router';
import type { ConfigsBackend } from './backend';
import { configsHandlers } from './handlers';

export function configsRoutes(backend: ConfigsBackend): Route[] {
  const h = configsHandlers(backend);
  return [
    { method: 'GET', path: '/configs', handler: h.list, minVersion: '1.30' },
    { method: 'POST', path: '/configs/create', handler: h.create, minVersion: '1.30' },
    { method: 'GET', path: '/configs/{id}', handler: h.inspect, minVersion: '1.30' },
    { method: 'POST', path: '/configs/{id}/update', handler: h.update, minVersion: '1.30' },
    { method: 'DELETE', path: '/configs/{id}', handler: h.remove, minVersion: '1.30' },
  ];
}

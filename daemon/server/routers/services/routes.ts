import type { Route } from '../../router';
import type { ServicesBackend } from './backend';
import { servicesHandlers } from './handlers';

export function servicesRoutes(backend: ServicesBackend): Route[] {
  const h = servicesHandlers(backend);
  return [
    { method: 'GET', path: '/services', handler: h.list, minVersion: '1.24' },
    { method: 'POST', path: '/services/create', handler: h.create, minVersion: '1.24' },
    { method: 'GET', path: '/services/{id}', handler: h.inspect, minVersion: '1.24' },
    { method: 'POST', path: '/services/{id}/update', handler: h.update, minVersion: '1.24' },
    { method: 'DELETE', path: '/services/{id}', handler: h.remove, minVersion: '1.24' },
    { method: 'GET', path: '/services/{id}/logs', handler: h.logs, minVersion: '1.25' },
  ];
}

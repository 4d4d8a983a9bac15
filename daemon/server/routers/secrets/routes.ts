import type { Route } from '../../router';
import type { SecretsBackend } from './backend';
import { secretsHandlers } from './handlers';

export function secretsRoutes(backend: SecretsBackend): Route[] {
  const h = secretsHandlers(backend);
  return [
    { method: 'GET', path: '/secrets', handler: h.list, minVersion: '1.25' },
    { method: 'POST', path: '/secrets/create', handler: h.create, minVersion: '1.25' },
    { method: 'GET', path: '/secrets/{id}', handler: h.inspect, minVersion: '1.25' },
    { method: 'POST', path: '/secrets/{id}/update', handler: h.update, minVersion: '1.25' },
    { method: 'DELETE', path: '/secrets/{id}', handler: h.remove, minVersion: '1.25' },
  ];
}

import type { Route } from '../../router';
import type { BuildBackend } from './backend';
import { buildHandlers } from './handlers';

export function buildRoutes(backend: BuildBackend): Route[] {
  const h = buildHandlers(backend);
  return [
    { method: 'POST', path: '/build', handler: h.build },
    { method: 'POST', path: '/build/prune', handler: h.prune, minVersion: '1.31' },
  ];
}

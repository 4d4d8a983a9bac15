import type { Route } from '../../router';
import type { ContainerStreamsBackend } from './backend';
import { containerStreamsHandlers } from './handlers';

export function containerStreamsRoutes(backend: ContainerStreamsBackend): Route[] {
  const h = containerStreamsHandlers(backend);
  return [
    { method: 'GET', path: '/containers/{id}/logs', handler: h.logs },
    { method: 'POST', path: '/containers/{id}/attach', handler: h.attach },
    { method: 'GET', path: '/containers/{id}/attach/ws', handler: h.attachWs },
    { method: 'GET', path: '/containers/{id}/stats', handler: h.stats },
  ];
}

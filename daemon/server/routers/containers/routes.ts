import type { Route } from '../../router';
import type { ContainersBackend } from './backend';
import { containersHandlers } from './handlers';

export function containersRoutes(backend: ContainersBackend): Route[] {
  const h = containersHandlers(backend);
  return [
    { method: 'GET', path: '/containers/json', handler: h.list },
    { method: 'POST', path: '/containers/create', handler: h.create },
    { method: 'POST', path: '/containers/prune', handler: h.prune, minVersion: '1.25' },
    { method: 'GET', path: '/containers/{id}/json', handler: h.inspect },
    { method: 'GET', path: '/containers/{id}/top', handler: h.top },
    { method: 'GET', path: '/containers/{id}/changes', handler: h.changes },
    { method: 'GET', path: '/containers/{id}/export', handler: h.export },
    { method: 'POST', path: '/containers/{id}/resize', handler: h.resize },
    { method: 'POST', path: '/containers/{id}/start', handler: h.start },
    { method: 'POST', path: '/containers/{id}/stop', handler: h.stop },
    { method: 'POST', path: '/containers/{id}/restart', handler: h.restart },
    { method: 'POST', path: '/containers/{id}/kill', handler: h.kill },
    { method: 'POST', path: '/containers/{id}/update', handler: h.update, minVersion: '1.22' },
    { method: 'POST', path: '/containers/{id}/rename', handler: h.rename },
    { method: 'POST', path: '/containers/{id}/pause', handler: h.pause },
    { method: 'POST', path: '/containers/{id}/unpause', handler: h.unpause },
    { method: 'POST', path: '/containers/{id}/wait', handler: h.wait },
    // A link's name spans a slash (`DELETE /containers/parent/alias?link=1`), as dockerd's route does.
    { method: 'DELETE', path: '/containers/{id*}', handler: h.remove },
    { method: 'POST', path: '/containers/{id}/copy', handler: h.copy, maxVersion: '1.23' },
    { method: 'HEAD', path: '/containers/{id}/archive', handler: h.archiveHead, minVersion: '1.20' },
    { method: 'GET', path: '/containers/{id}/archive', handler: h.archiveGet, minVersion: '1.20' },
    { method: 'PUT', path: '/containers/{id}/archive', handler: h.archivePut, minVersion: '1.20' },
    { method: 'POST', path: '/commit', handler: h.commit },
  ];
}

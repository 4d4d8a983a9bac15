import type { Route } from '../../router';
import type { ExecBackend } from './backend';
import { execHandlers } from './handlers';

export function execRoutes(backend: ExecBackend): Route[] {
  const h = execHandlers(backend);
  return [
    { method: 'POST', path: '/containers/{id}/exec', handler: h.create },
    { method: 'POST', path: '/exec/{id}/start', handler: h.start },
    { method: 'POST', path: '/exec/{id}/resize', handler: h.resize },
    { method: 'GET', path: '/exec/{id}/json', handler: h.inspect },
  ];
}

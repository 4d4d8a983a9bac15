import type { Route } from '../../router';
import type { PluginsBackend } from './backend';
import { pluginsHandlers } from './handlers';

export function pluginsRoutes(backend: PluginsBackend): Route[] {
  const h = pluginsHandlers(backend);
  return [
    { method: 'GET', path: '/plugins', handler: h.list, minVersion: '1.25' },
    { method: 'GET', path: '/plugins/privileges', handler: h.privileges, minVersion: '1.25' },
    { method: 'POST', path: '/plugins/pull', handler: h.pull, minVersion: '1.25' },
    { method: 'POST', path: '/plugins/create', handler: h.create, minVersion: '1.25' },
    { method: 'GET', path: '/plugins/{name*}/json', handler: h.inspect, minVersion: '1.25' },
    { method: 'POST', path: '/plugins/{name*}/enable', handler: h.enable, minVersion: '1.25' },
    { method: 'POST', path: '/plugins/{name*}/disable', handler: h.disable, minVersion: '1.25' },
    { method: 'POST', path: '/plugins/{name*}/upgrade', handler: h.upgrade, minVersion: '1.26' },
    { method: 'POST', path: '/plugins/{name*}/push', handler: h.push, minVersion: '1.25' },
    { method: 'POST', path: '/plugins/{name*}/set', handler: h.set, minVersion: '1.25' },
    { method: 'DELETE', path: '/plugins/{name*}', handler: h.remove, minVersion: '1.25' },
  ];
}

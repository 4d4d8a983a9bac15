import type { Route } from '../../router';
import type { SwarmBackend } from './backend';
import { swarmHandlers } from './handlers';

export function swarmRoutes(backend: SwarmBackend): Route[] {
  const h = swarmHandlers(backend);
  return [
    { method: 'GET', path: '/swarm', handler: h.inspect, minVersion: '1.24' },
    { method: 'POST', path: '/swarm/init', handler: h.init, minVersion: '1.24' },
    { method: 'POST', path: '/swarm/join', handler: h.join, minVersion: '1.24' },
    { method: 'POST', path: '/swarm/leave', handler: h.leave, minVersion: '1.24' },
    { method: 'POST', path: '/swarm/update', handler: h.update, minVersion: '1.24' },
    { method: 'GET', path: '/swarm/unlockkey', handler: h.unlockKey, minVersion: '1.25' },
    { method: 'POST', path: '/swarm/unlock', handler: h.unlock, minVersion: '1.25' },
  ];
}

import type { Route } from '../../router';
import type { ImagesBackend } from './backend';
import { imagesHandlers } from './handlers';

/** Fixed paths first: the table is matched in order and `{name*}` spans slashes. */
export function imagesRoutes(backend: ImagesBackend): Route[] {
  const h = imagesHandlers(backend);
  return [
    { method: 'GET', path: '/images/json', handler: h.list },
    { method: 'POST', path: '/images/create', handler: h.create },
    { method: 'POST', path: '/images/load', handler: h.load },
    { method: 'GET', path: '/images/get', handler: h.saveMany },
    { method: 'POST', path: '/images/prune', handler: h.prune, minVersion: '1.25' },
    { method: 'GET', path: '/images/search', handler: h.search },
    { method: 'POST', path: '/auth', handler: h.auth },
    { method: 'GET', path: '/images/{name*}/json', handler: h.inspect },
    { method: 'GET', path: '/images/{name*}/history', handler: h.history },
    { method: 'GET', path: '/images/{name*}/get', handler: h.save },
    { method: 'POST', path: '/images/{name*}/tag', handler: h.tag },
    { method: 'POST', path: '/images/{name*}/push', handler: h.push },
    { method: 'DELETE', path: '/images/{name*}', handler: h.remove },
  ];
}

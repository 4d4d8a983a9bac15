import { versionFeatures } from '../../../api/versions';
import type { Route } from '../../router';
import type { SystemBackend } from './backend';
import { ping, systemHandlers } from './handlers';

export function systemRoutes(backend: SystemBackend): Route[] {
  const h = systemHandlers(backend);
  return [
    { method: 'GET', path: '/_ping', handler: ping },
    { method: 'HEAD', path: '/_ping', handler: ping, minVersion: versionFeatures.headPing },
    { method: 'GET', path: '/version', handler: h.version },
    { method: 'GET', path: '/info', handler: h.info },
    { method: 'GET', path: '/system/df', handler: h.diskUsage },
  ];
}

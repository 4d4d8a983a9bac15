import type { Route } from '../../router';
import type { DistributionBackend } from './backend';
import { distributionHandlers } from './handlers';

export function distributionRoutes(backend: DistributionBackend): Route[] {
  const h = distributionHandlers(backend);
  return [{ method: 'GET', path: '/distribution/{name*}/json', handler: h.inspect, minVersion: '1.30' }];
}

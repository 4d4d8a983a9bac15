import type { Route } from '../../router';
import type { EventsBackend } from './backend';
import { eventsHandler } from './handlers';

export function eventsRoutes(backend: EventsBackend): Route[] {
  return [{ method: 'GET', path: '/events', handler: eventsHandler(backend) }];
}

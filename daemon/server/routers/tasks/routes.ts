import type { Route } from '../../router';
import type { TasksBackend } from './backend';
import { tasksHandlers } from './handlers';

export function tasksRoutes(backend: TasksBackend): Route[] {
  const h = tasksHandlers(backend);
  return [
    { method: 'GET', path: '/tasks', handler: h.list, minVersion: '1.24' },
    { method: 'GET', path: '/tasks/{id}', handler: h.inspect, minVersion: '1.24' },
  ];
}

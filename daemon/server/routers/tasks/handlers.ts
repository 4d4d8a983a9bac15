import { sendJson } from '../../http/respond';
import type { Handler } from '../../router';
import type { TasksBackend } from './backend';

export function tasksHandlers(b: TasksBackend): Record<'list' | 'inspect', Handler> {
  return {
    list: async ({ res, query }) => sendJson(res, 200, b.listTasks(query.filters())),
    inspect: async ({ res, params }) => sendJson(res, 200, b.inspectTask(params.id)),
  };
}

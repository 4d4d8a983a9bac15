import type { NodeSpec } from '../../../api/swarm-types';
import { readJsonObject, requiredVersion } from '../../http/body';
import { sendJson, sendStatus } from '../../http/respond';
import type { Handler } from '../../router';
import type { NodesBackend } from './backend';

export function nodesHandlers(b: NodesBackend): Record<'list' | 'inspect' | 'update' | 'remove', Handler> {
  return {
    list: async ({ res, query }) => sendJson(res, 200, b.list(query.filters())),
    inspect: async ({ res, params }) => sendJson(res, 200, b.inspect(params.id)),
    update: async ({ req, res, params, query }) => {
      const version = requiredVersion(query);
      await b.update(params.id, version, await readJsonObject<NodeSpec>(req));
      sendStatus(res, 200);
    },
    remove: async ({ res, params, query }) => {
      b.remove(params.id, query.bool('force'));
      sendStatus(res, 200);
    },
  };
}

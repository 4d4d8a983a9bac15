import type { SecretSpec } from '../../../api/swarm-types';
import { readJsonObject, requiredVersion } from '../../http/body';
import { sendJson, sendStatus } from '../../http/respond';
import type { Handler } from '../../router';
import type { SecretsBackend } from './backend';

export function secretsHandlers(
  b: SecretsBackend,
): Record<'create' | 'list' | 'inspect' | 'update' | 'remove', Handler> {
  return {
    create: async ({ req, res }) => sendJson(res, 201, await b.create(await readJsonObject<SecretSpec>(req))),
    list: async ({ res, query }) => sendJson(res, 200, b.list(query.filters())),
    inspect: async ({ res, params }) => sendJson(res, 200, b.inspect(params.id)),
    update: async ({ req, res, params, query }) => {
      const version = requiredVersion(query);
      await b.update(params.id, version, await readJsonObject<SecretSpec>(req));
      sendStatus(res, 200);
    },
    remove: async ({ res, params }) => {
      await b.remove(params.id);
      sendStatus(res, 204);
    },
  };
}

import { InvalidParameterError } from '../../../api/errors';
import type { SwarmInitRequest, SwarmSpec } from '../../../api/swarm-types';
import { readJsonObject, requiredVersion } from '../../http/body';
import { sendJson, sendStatus } from '../../http/respond';
import type { Handler } from '../../router';
import type { SwarmBackend } from './backend';

export function swarmHandlers(
  b: SwarmBackend,
): Record<'init' | 'join' | 'inspect' | 'update' | 'unlockKey' | 'unlock' | 'leave', Handler> {
  return {
    init: async ({ req, res }) =>
      sendJson(res, 200, await b.init(await readJsonObject<SwarmInitRequest>(req, {}))),
    join: async ({ req }) => {
      await readJsonObject(req, {});
      b.join();
    },
    inspect: async ({ res }) => sendJson(res, 200, b.inspect()),
    update: async ({ req, res, query }) => {
      const version = requiredVersion(query);
      await b.update({
        version,
        spec: await readJsonObject<SwarmSpec>(req),
        rotateWorkerToken: query.bool('rotateWorkerToken'),
        rotateManagerToken: query.bool('rotateManagerToken'),
        rotateManagerUnlockKey: query.bool('rotateManagerUnlockKey'),
      });
      sendStatus(res, 200);
    },
    unlockKey: async ({ res }) => sendJson(res, 200, b.unlockKey()),
    unlock: async ({ req, res }) => {
      const { UnlockKey } = await readJsonObject<{ UnlockKey?: unknown }>(req);
      if (typeof UnlockKey !== 'string' || !UnlockKey)
        throw new InvalidParameterError('UnlockKey is required');
      await b.unlock(UnlockKey);
      sendStatus(res, 200);
    },
    leave: async ({ res, query }) => {
      await b.leave(query.bool('force'));
      sendStatus(res, 200);
    },
  };
}

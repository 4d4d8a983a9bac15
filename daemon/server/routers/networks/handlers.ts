import { InvalidParameterError } from '../../../api/errors';
import type {
  NetworkConnectBody,
  NetworkCreateBody,
  NetworkDisconnectBody,
} from '../../../api/network-types';
import { supports } from '../../../api/versions';
import { readJson } from '../../http/body';
import { sendJson, sendStatus } from '../../http/respond';
import type { Handler } from '../../router';
import type { NetworkMembershipBackend, NetworksBackend } from './backend';

async function objectBody<T>(req: Parameters<Handler>[0]['req']): Promise<T> {
  const body = await readJson<unknown>(req);
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new InvalidParameterError('the body must be a JSON object');
  return body as T;
}

function containerOf(body: { Container?: unknown }): string {
  if (typeof body.Container !== 'string' || body.Container === '')
    throw new InvalidParameterError('Container must name a container');
  return body.Container;
}

export function networksHandlers(
  b: NetworksBackend,
  members: NetworkMembershipBackend,
): Record<'list' | 'inspect' | 'create' | 'remove' | 'prune' | 'connect' | 'disconnect', Handler> {
  return {
    list: async ({ res, query }) => sendJson(res, 200, b.list(query.filters())),
    inspect: async ({ res, params }) => sendJson(res, 200, b.inspect(params.id)),
    create: async ({ req, res }) => {
      const body = await objectBody<NetworkCreateBody>(req);
      if (typeof body.Name !== 'string') throw new InvalidParameterError('Name must be a string');
      sendJson(res, 201, await b.create(body));
    },
    remove: async ({ res, params, version }) => {
      await b.remove(params.id);
      // API 1.21 and 1.22 answered 200.
      sendStatus(res, supports(version, 'networkRemoveNoContent') ? 204 : 200);
    },
    prune: async ({ res, query }) => sendJson(res, 200, await b.prune(query.filters())),
    connect: async ({ req, res, params }) => {
      const body = await objectBody<NetworkConnectBody>(req);
      await members.connectNetwork(params.id, containerOf(body), body.EndpointConfig ?? null);
      sendStatus(res, 200);
    },
    disconnect: async ({ req, res, params }) => {
      const body = await objectBody<NetworkDisconnectBody>(req);
      await members.disconnectNetwork(params.id, containerOf(body), body.Force === true);
      sendStatus(res, 200);
    },
  };
}

import { InvalidParameterError } from '../../../api/errors';
import type { ServiceSpec, ServiceUpdateRequest } from '../../../api/swarm-types';
import { registryAuthHeader } from '../../http/registry-auth';
import { readJsonObject, requiredVersion } from '../../http/body';
import { sendJson, sendStatus } from '../../http/respond';
import { parseTimestampNano } from '../../http/timestamps';
import type { Handler } from '../../router';
import { parseTail, serveLogStream } from '../../streams/log-stream';
import type { ServicesBackend } from './backend';

export function servicesHandlers(
  b: ServicesBackend,
): Record<'create' | 'list' | 'inspect' | 'update' | 'remove' | 'logs', Handler> {
  return {
    // The registry auth header is kept for the pulls of the tasks' image.
    create: async ({ req, res }) =>
      sendJson(res, 201, await b.create(await readJsonObject<ServiceSpec>(req), registryAuthHeader(req))),
    list: async ({ res, query }) =>
      sendJson(res, 200, b.list({ filters: query.filters(), status: query.bool('status') })),
    inspect: async ({ res, params, query }) =>
      sendJson(res, 200, b.inspect(params.id, query.bool('insertDefaults'))),
    update: async ({ req, res, params, query }) => {
      const version = requiredVersion(query);
      const rollback = query.string('rollback');
      if (rollback !== undefined && rollback !== '' && rollback !== 'previous')
        throw new InvalidParameterError(
          `invalid rollback ${JSON.stringify(rollback)}: only "previous" is known`,
        );
      const registryAuthFrom = query.string('registryAuthFrom') ?? 'spec';
      if (!['spec', 'previous-spec'].includes(registryAuthFrom))
        throw new InvalidParameterError(`invalid registryAuthFrom ${JSON.stringify(registryAuthFrom)}`);
      const spec = await readJsonObject<ServiceSpec>(req);
      sendJson(
        res,
        200,
        await b.update({
          ref: params.id,
          version,
          spec,
          rollback: rollback === 'previous',
          auth: registryAuthHeader(req),
          authFrom: registryAuthFrom as ServiceUpdateRequest['authFrom'],
        }),
      );
    },
    remove: async ({ res, params }) => {
      await b.remove(params.id);
      sendStatus(res, 200);
    },
    logs: async ({ req, res, params, query, signal }) => {
      const gone = new AbortController();
      signal.addEventListener('abort', () => gone.abort(), { once: true });
      const stdout = query.bool('stdout');
      const stderr = query.bool('stderr');
      if (!stdout && !stderr)
        throw new InvalidParameterError('Bad parameters: you must choose at least one stream');
      const logs = b.logs(params.id, {
        stdout,
        stderr,
        since: parseTimestampNano('since', query.string('since')) || undefined,
        tail: parseTail(query.string('tail')),
        follow: query.bool('follow'),
        timestamps: query.bool('timestamps'),
        details: query.bool('details'),
        signal: gone.signal,
      });
      await serveLogStream(req, res, logs, gone);
    },
  };
}

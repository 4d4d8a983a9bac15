import { InvalidParameterError } from '../../../api/errors';
import type { PluginPrivilege } from '../../../api/plugin-types';
import { bodyStream, readJson } from '../../http/body';
import { registryAuthHeader } from '../../http/registry-auth';
import { sendJson, sendStatus } from '../../http/respond';
import type { Handler, RequestContext } from '../../router';
import { jsonStream } from '../../streams/json-stream';
import type { PluginsBackend } from './backend';

type Name =
  | 'list'
  | 'privileges'
  | 'pull'
  | 'create'
  | 'inspect'
  | 'enable'
  | 'disable'
  | 'upgrade'
  | 'push'
  | 'set'
  | 'remove';

function requiredRemote(ctx: RequestContext): string {
  const remote = ctx.query.string('remote');
  if (!remote) throw new InvalidParameterError('remote is required: the plugin reference to pull');
  return remote;
}

/** The privileges the client granted: a JSON list of {Name, Description, Value}. */
async function grantedPrivileges(ctx: RequestContext): Promise<PluginPrivilege[]> {
  const body = await readJson<unknown>(ctx.req);
  if (body === undefined || body === null) return [];
  const valid =
    Array.isArray(body) &&
    body.every(
      (p: Partial<PluginPrivilege> | null) =>
        typeof p === 'object' &&
        p !== null &&
        typeof p.Name === 'string' &&
        (p.Value === undefined ||
          p.Value === null ||
          (Array.isArray(p.Value) && p.Value.every((v) => typeof v === 'string'))),
    );
  if (!valid)
    throw new InvalidParameterError('the body must be a JSON list of privileges {Name, Description, Value}');
  return (body as PluginPrivilege[]).map((p) => ({
    Name: p.Name,
    Description: p.Description ?? '',
    Value: p.Value ?? [],
  }));
}

export function pluginsHandlers(b: PluginsBackend): Record<Name, Handler> {
  return {
    list: async ({ res, query }) => sendJson(res, 200, await b.list(query.filters())),

    privileges: async (ctx) =>
      sendJson(
        ctx.res,
        200,
        await b.privileges(requiredRemote(ctx), registryAuthHeader(ctx.req), ctx.signal),
      ),

    pull: async (ctx) => {
      const remote = requiredRemote(ctx);
      const privileges = await grantedPrivileges(ctx);
      await jsonStream(ctx.res, (emit) =>
        b.pull({
          remote,
          name: ctx.query.string('name') ?? '',
          privileges,
          auth: registryAuthHeader(ctx.req),
          // The docker CLI enables the plugin it installed by this name.
          named: (local) => ctx.res.setHeader('Docker-Plugin-Name', local),
          emit,
          signal: ctx.signal,
        }),
      );
    },

    upgrade: async (ctx) => {
      const remote = requiredRemote(ctx);
      const privileges = await grantedPrivileges(ctx);
      await jsonStream(ctx.res, (emit) =>
        b.upgrade({
          plugin: ctx.params.name,
          remote,
          privileges,
          auth: registryAuthHeader(ctx.req),
          emit,
          signal: ctx.signal,
        }),
      );
    },

    create: async ({ req, res, query }) => {
      const name = query.string('name');
      if (!name) throw new InvalidParameterError('name is required: the name of the plugin to create');
      await b.create({ name, context: bodyStream(req) });
      sendStatus(res, 204);
    },

    push: async (ctx) => {
      await jsonStream(ctx.res, (emit) =>
        b.push({ name: ctx.params.name, auth: registryAuthHeader(ctx.req), emit, signal: ctx.signal }),
      );
    },

    inspect: async ({ res, params }) => sendJson(res, 200, await b.inspect(params.name)),

    enable: async ({ res, params, query }) => {
      const timeout = query.int('timeout', 30)!;
      if (timeout < 0) throw new InvalidParameterError('timeout must not be negative');
      await b.enable(params.name, timeout);
      sendStatus(res, 200);
    },

    disable: async ({ res, params, query }) => {
      await b.disable(params.name, query.bool('force'));
      sendStatus(res, 200);
    },

    set: async ({ req, res, params }) => {
      const body = await readJson<unknown>(req);
      if (!Array.isArray(body) || !body.every((s) => typeof s === 'string'))
        throw new InvalidParameterError('the body must be a JSON list of settings, such as ["DEBUG=1"]');
      await b.set(params.name, body as string[]);
      sendStatus(res, 204);
    },

    remove: async ({ res, params, query }) => {
      await b.remove(params.name, query.bool('force'));
      sendStatus(res, 200);
    },
  };
}

import { pipeline } from 'node:stream/promises';
import { authConfigShape } from '../../../api/auth-body-shape';
import { InvalidParameterError } from '../../../api/errors';
import { checkBodyShape } from '../../../lib/body-shape';
import { supports } from '../../../api/versions';
import { bodyStream, readJson } from '../../http/body';
import { registryAuthHeader } from '../../http/registry-auth';
import { sendJson, sendStatus } from '../../http/respond';
import type { Handler, RequestContext } from '../../router';
import { jsonStream } from '../../streams/json-stream';
import type { ImagesBackend } from './backend';

type Name =
  | 'list'
  | 'create'
  | 'load'
  | 'saveMany'
  | 'save'
  | 'prune'
  | 'search'
  | 'auth'
  | 'inspect'
  | 'history'
  | 'tag'
  | 'push'
  | 'remove';

async function sendArchive(ctx: RequestContext, names: string[], backend: ImagesBackend): Promise<void> {
  const archive = await backend.save(names, ctx.signal);
  ctx.res.writeHead(200, { 'Content-Type': 'application/x-tar' });
  // A failure half-way cuts the connection: the client sees a truncated archive, never a clean end.
  await pipeline(archive, ctx.res).catch(() => ctx.res.destroy());
}

export function imagesHandlers(backend: ImagesBackend): Record<Name, Handler> {
  return {
    list: async ({ res, query, version }) => {
      const filters = query.filters();
      const single = query.string('filter');
      if (single && !supports(version, 'imagesFilterParamRemoved')) {
        filters.set('reference', [...(filters.get('reference') ?? []), single]);
      }
      sendJson(res, 200, await backend.list({ filters, all: query.bool('all') }));
    },

    create: async (ctx) => {
      const { query, req, res, signal } = ctx;
      const fromImage = query.string('fromImage');
      const fromSrc = query.string('fromSrc');
      const platform = query.string('platform') || undefined;
      if (fromImage) {
        await jsonStream(res, (emit) =>
          backend.pull({
            image: fromImage,
            tag: query.string('tag'),
            platform,
            auth: registryAuthHeader(ctx.req),
            emit,
            signal,
          }),
        );
      } else if (fromSrc) {
        await jsonStream(res, async (emit) => {
          const id = await backend.importImage({
            body: fromSrc === '-' ? bodyStream(req) : undefined,
            fromSrc,
            repo: query.string('repo') || undefined,
            tag: query.string('tag') || undefined,
            message: query.string('message') || undefined,
            changes: query.all('changes'),
            platform,
            emit,
            signal,
          });
          emit({ status: id });
        });
      } else {
        throw new InvalidParameterError('fromImage or fromSrc is required');
      }
    },

    load: async ({ req, res, query, signal }) => {
      await jsonStream(
        res,
        (emit) => backend.load(bodyStream(req), { quiet: query.bool('quiet'), emit, signal }),
        true,
      );
    },

    saveMany: async (ctx) => {
      const names = ctx.query.all('names');
      if (names.length === 0) throw new InvalidParameterError('names is required');
      await sendArchive(ctx, names, backend);
    },

    save: (ctx) => sendArchive(ctx, [ctx.params.name], backend),

    prune: async ({ res, query }) => sendJson(res, 200, await backend.prune(query.filters())),

    search: async (ctx) => {
      const { query, res, signal } = ctx;
      const term = query.string('term');
      if (!term)
        throw new InvalidParameterError('term is required: the name, or registry/name, to search for');
      sendJson(
        res,
        200,
        await backend.search({
          term,
          limit: query.int('limit', 25)!,
          filters: query.filters(),
          auth: registryAuthHeader(ctx.req),
          signal,
        }),
      );
    },

    auth: async ({ req, res, signal }) => {
      const body = await readJson<Record<string, unknown>>(req);
      if (!body) throw new InvalidParameterError('an AuthConfig body is required');
      checkBodyShape(body, authConfigShape, 'AuthConfig');
      sendJson(res, 200, await backend.auth(body, signal));
    },

    inspect: async ({ res, params }) => sendJson(res, 200, await backend.inspect(params.name)),

    history: async ({ res, params }) => sendJson(res, 200, await backend.history(params.name)),

    tag: async ({ res, params, query }) => {
      await backend.tag(params.name, query.string('repo') || undefined, query.string('tag') || undefined);
      sendStatus(res, 201);
    },

    push: async (ctx) => {
      const { params, query, res, signal } = ctx;
      await jsonStream(res, (emit) =>
        backend.push({
          name: params.name,
          tag: query.string('tag') || undefined,
          auth: registryAuthHeader(ctx.req),
          emit,
          signal,
        }),
      );
    },

    remove: async ({ res, params, query }) =>
      sendJson(
        res,
        200,
        await backend.remove(params.name, { force: query.bool('force'), noprune: query.bool('noprune') }),
      ),
  };
}

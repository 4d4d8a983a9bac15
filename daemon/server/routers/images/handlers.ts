import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { InvalidParameterError, NotImplementedError } from '../../../api/errors';
import { supports } from '../../../api/versions';
import { JsonLinesWriter } from '../../../lib/json-lines';
import { readJson } from '../../http/body';
import { sendJson, sendStatus } from '../../http/respond';
import type { Handler, RequestContext } from '../../router';
import type { Emit } from '../../../api/image-types';
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

/**
 * Runs a streaming operation: its messages go out as JSON lines. A failure before the first
 * message is an ordinary error answer (the status says it) unless `failInStream`, as dockerd's
 * load always answers 200 and tells a bad archive in the stream; after, it goes into the stream.
 */
async function jsonStream(
  res: ServerResponse,
  run: (emit: Emit) => Promise<void>,
  failInStream = false,
): Promise<void> {
  const writer = new JsonLinesWriter(res, () => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.flushHeaders();
  });
  // Messages are emitted synchronously by the engine; writes are chained to keep their order.
  let chain = Promise.resolve();
  const emit: Emit = (message) => {
    chain = chain.then(() => writer.write(message)).catch(() => undefined);
  };
  try {
    await run(emit);
    await chain;
  } catch (err) {
    await chain;
    if (!writer.started && !failInStream) throw err;
    if (!res.destroyed) await writer.writeError(err).catch(() => undefined);
  }
  writer.end();
}

function registryAuth(ctx: RequestContext): string | undefined {
  const header = ctx.req.headers['x-registry-auth'];
  return Array.isArray(header) ? header[0] : header;
}

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
      sendJson(res, 200, await backend.list({ filters }));
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
            auth: registryAuth(ctx),
            emit,
            signal,
          }),
        );
      } else if (fromSrc) {
        await jsonStream(res, async (emit) => {
          const id = await backend.importImage({
            body: fromSrc === '-' ? req : undefined,
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
      await jsonStream(res, (emit) => backend.load(req, { quiet: query.bool('quiet'), emit, signal }), true);
    },

    saveMany: async (ctx) => {
      const names = ctx.query.all('names');
      if (names.length === 0) throw new InvalidParameterError('names is required');
      await sendArchive(ctx, names, backend);
    },

    save: (ctx) => sendArchive(ctx, [ctx.params.name], backend),

    prune: async ({ res, query }) => sendJson(res, 200, await backend.prune(query.filters())),

    search: async () => {
      throw new NotImplementedError('image search is not implemented: svcd has no index to search');
    },

    auth: async ({ req, res, signal }) => {
      const body = await readJson<Record<string, unknown>>(req);
      if (!body) throw new InvalidParameterError('an AuthConfig body is required');
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
          auth: registryAuth(ctx),
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

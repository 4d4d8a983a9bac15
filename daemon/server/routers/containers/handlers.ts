import { containerConfigShape, hostConfigShape, resourcesShape } from '../../../api/container-body-shape';
import { checkBodyShape } from '../../../lib/body-shape';
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { ContainerPathStat, WaitCondition } from '../../../api/container-summary-types';
import type {
  ContainerConfig,
  ContainerCreateBody,
  HostConfig,
  Resources,
  RestartPolicy,
} from '../../../api/container-types';
import { InvalidParameterError } from '../../../api/errors';
import { createBehaviours, supports } from '../../../api/versions';
import { bodyStream, readJson } from '../../http/body';
import { sendJson, sendStatus } from '../../http/respond';
import type { Handler } from '../../router';
import type { ContainersBackend } from './backend';

const waitConditions: WaitCondition[] = ['not-running', 'next-exit', 'removed'];

function statHeaders(stat: ContainerPathStat): Record<string, string> {
  const value = Buffer.from(JSON.stringify(stat)).toString('base64');
  return { 'X-Svc-Container-Path-Stat': value, 'X-Docker-Container-Path-Stat': value };
}

function requiredPath(path: string | undefined): string {
  if (!path) throw new InvalidParameterError('Path cannot be empty');
  return path;
}

async function streamTar(
  res: ServerResponse,
  archive: Readable,
  type = 'application/x-tar',
  headers = {},
): Promise<void> {
  res.writeHead(200, { 'Content-Type': type, ...headers });
  await pipeline(archive, res);
}

export function containersHandlers(b: ContainersBackend): Record<string, Handler> {
  return {
    list: async ({ res, query }) =>
      sendJson(
        res,
        200,
        await b.list({
          all: query.bool('all'),
          limit: query.int('limit'),
          since: query.string('since'),
          before: query.string('before'),
          size: query.bool('size'),
          filters: query.filters(),
        }),
      ),

    create: async ({ req, res, query, version }) => {
      const body = (await readJson<ContainerCreateBody>(req)) ?? {};
      checkBodyShape(body, containerConfigShape, 'the create body');
      checkBodyShape(body.HostConfig, hostConfigShape, 'HostConfig');
      sendJson(
        res,
        201,
        await b.create({
          name: query.string('name') || undefined,
          body,
          behaviours: createBehaviours(version),
        }),
      );
    },

    prune: async ({ res, query }) => sendJson(res, 200, await b.prune(query.filters())),

    inspect: async ({ res, params, query }) =>
      sendJson(res, 200, await b.inspect(params.id, query.bool('size'))),

    top: async ({ res, params, query }) =>
      sendJson(res, 200, await b.top(params.id, query.string('ps_args') ?? '')),

    changes: async ({ res, params }) => sendJson(res, 200, await b.changes(params.id)),

    export: async ({ res, params }) => streamTar(res, await b.export(params.id), 'application/octet-stream'),

    resize: async ({ res, params, query }) => {
      await b.resize(params.id, query.int('h', 0) ?? 0, query.int('w', 0) ?? 0);
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': 0 });
      res.end();
    },

    start: async ({ req, res, params, version }) => {
      const body = await readJson<HostConfig>(req);
      const hasBody = body !== undefined && body !== null && Object.keys(body).length > 0;
      if (hasBody && supports(version, 'startWithoutHostConfig')) {
        throw new InvalidParameterError(
          'starting container with non-empty request body was deprecated since API v1.22 and removed in v1.24',
        );
      }
      await b.start(
        params.id,
        hasBody ? { hostConfig: body, behaviours: createBehaviours(version) } : undefined,
      );
      sendStatus(res, 204);
    },

    stop: async ({ res, params, query }) => {
      await b.stop(params.id, query.int('t'));
      sendStatus(res, 204);
    },

    restart: async ({ res, params, query }) => {
      await b.restart(params.id, query.int('t'));
      sendStatus(res, 204);
    },

    kill: async ({ res, params, query }) => {
      await b.kill(params.id, query.string('signal') || undefined);
      sendStatus(res, 204);
    },

    update: async ({ req, res, params }) => {
      const body = (await readJson<Resources & { RestartPolicy?: RestartPolicy | null }>(req)) ?? {};
      checkBodyShape(body, { ...resourcesShape, RestartPolicy: 'object' }, 'the update body');
      sendJson(res, 200, await b.update(params.id, body));
    },

    rename: async ({ res, params, query }) => {
      await b.rename(params.id, query.string('name') ?? '');
      sendStatus(res, 204);
    },

    pause: async ({ res, params }) => {
      await b.pause(params.id);
      sendStatus(res, 204);
    },

    unpause: async ({ res, params }) => {
      await b.unpause(params.id);
      sendStatus(res, 204);
    },

    wait: async ({ res, params, query, version }) => {
      let condition: WaitCondition = 'not-running';
      const asked = query.string('condition');
      if (asked && supports(version, 'waitCondition')) {
        if (!waitConditions.includes(asked as WaitCondition)) {
          throw new InvalidParameterError(`invalid condition: "${asked}"`);
        }
        condition = asked as WaitCondition;
      }
      const { result } = await b.wait(params.id, condition);
      // Headers go out at once: clients start the container only once the wait is in place.
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.flushHeaders();
      const outcome = await result;
      const body = supports(version, 'waitError')
        ? { StatusCode: outcome.StatusCode, Error: outcome.Error ?? null }
        : { StatusCode: outcome.StatusCode };
      res.end(JSON.stringify(body));
    },

    remove: async ({ res, params, query }) => {
      await b.remove(params.id, {
        force: query.bool('force'),
        volumes: query.bool('v'),
        link: query.bool('link'),
      });
      sendStatus(res, 204);
    },

    copy: async ({ req, res, params }) => {
      const body = await readJson<{ Resource?: string }>(req);
      const resource = body?.Resource;
      if (!resource) throw new InvalidParameterError('Path cannot be empty');
      const { archive } = await b.archiveGet(params.id, resource, 'copy');
      await streamTar(res, archive);
    },

    archiveHead: async ({ res, params, query }) => {
      const stat = await b.archiveStat(params.id, requiredPath(query.string('path')));
      res.writeHead(200, { ...statHeaders(stat), 'Content-Type': 'application/x-tar' });
      res.end();
    },

    archiveGet: async ({ res, params, query }) => {
      const { stat, archive } = await b.archiveGet(params.id, requiredPath(query.string('path')));
      await streamTar(res, archive, 'application/x-tar', statHeaders(stat));
    },

    archivePut: async ({ req, res, params, query }) => {
      await b.archivePut(params.id, requiredPath(query.string('path')), bodyStream(req), {
        noOverwriteDirNonDir: query.bool('noOverwriteDirNonDir'),
        copyUIDGID: query.bool('copyUIDGID'),
      });
      sendStatus(res, 200);
    },

    commit: async ({ req, res, query }) => {
      const config = await readJson<ContainerConfig>(req);
      sendJson(
        res,
        201,
        await b.commit({
          container: query.string('container') ?? '',
          repo: query.string('repo') || undefined,
          tag: query.string('tag') || undefined,
          comment: query.string('comment') || undefined,
          author: query.string('author') || undefined,
          pause: query.bool('pause', true),
          changes: query
            .all('changes')
            .flatMap((c) => c.split('\n'))
            .filter((c) => c.trim() !== ''),
          config: config ?? undefined,
        }),
      );
    },
  };
}

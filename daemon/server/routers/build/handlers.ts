import { InvalidParameterError } from '../../../api/errors';
import { supports } from '../../../api/versions';
import { parseJsonBounded } from '../../../lib/json-bounded';
import { bodyStream } from '../../http/body';
import type { Query } from '../../http/query';
import { sendJson } from '../../http/respond';
import type { Handler } from '../../router';
import { jsonStream } from '../../streams/json-stream';
import type { BuildBackend } from './backend';

type Name = 'build' | 'prune';

/** A JSON-encoded query parameter (buildargs, labels, cachefrom), its shape checked. */
function jsonParam<T>(query: Query, name: string, check: (v: unknown) => v is T, fallback: T): T {
  const raw = query.string(name);
  if (raw === undefined || raw === '') return fallback;
  const value = parseJsonBounded(raw, name);
  if (value === null) return fallback;
  if (!check(value))
    throw new InvalidParameterError(`invalid ${name}: ${JSON.stringify(raw)} has the wrong shape`);
  return value;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringMap = (v: unknown): v is Record<string, string> =>
  isObject(v) && Object.values(v).every((x) => typeof x === 'string');
const isArgMap = (v: unknown): v is Record<string, string | null> =>
  isObject(v) && Object.values(v).every((x) => typeof x === 'string' || x === null);
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

export function buildHandlers(backend: BuildBackend): Record<Name, Handler> {
  return {
    build: async ({ req, res, query, version, signal }) => {
      if (query.string('version') === '2') {
        throw new InvalidParameterError(
          'svcd builds with the classic builder only (builder version 1): BuildKit sessions are not served; build with DOCKER_BUILDKIT=0',
        );
      }
      if (query.bool('squash')) {
        throw new InvalidParameterError(
          'squash is not supported: the classic builder of svcd keeps every layer of a build',
        );
      }
      const header = req.headers['x-registry-config'];
      const int = (name: string) => query.int(name, 0)!;
      await jsonStream(res, (emit) =>
        backend.build({
          body: bodyStream(req),
          remote: query.string('remote') || undefined,
          instructionsFile: query.string('svcfile') || query.string('dockerfile') || undefined,
          tags: query.all('t').filter((t) => t !== ''),
          quiet: query.bool('q'),
          noCache: query.bool('nocache'),
          pull: query.bool('pull'),
          rm: query.bool('rm', true),
          forceRm: query.bool('forcerm'),
          buildArgs: jsonParam(query, 'buildargs', isArgMap, {}),
          labels: jsonParam(query, 'labels', isStringMap, {}),
          target: query.string('target') || undefined,
          cacheFrom: jsonParam(query, 'cachefrom', isStringList, []),
          platform: query.string('platform') || undefined,
          run: {
            memory: int('memory'),
            memorySwap: int('memswap'),
            cpuShares: int('cpushares'),
            cpuSetCpus: query.string('cpusetcpus') ?? '',
            cpuPeriod: int('cpuperiod'),
            cpuQuota: int('cpuquota'),
            shmSize: int('shmsize'),
            networkMode: query.string('networkmode') ?? '',
            extraHosts: (query.string('extrahosts') ?? '').split(',').filter((h) => h !== ''),
          },
          registryConfig: Array.isArray(header) ? header[0] : header,
          announceId: supports(version, 'buildAuxImageId'),
          emit,
          signal,
        }),
      );
    },

    prune: async ({ res, query }) =>
      sendJson(
        res,
        200,
        await backend.prune({ all: query.bool('all'), keepStorage: query.int('keep-storage', 0)! }),
      ),
  };
}

import { InvalidParameterError } from '../../../api/errors';
import { supports } from '../../../api/versions';
import type { VolumeCreateBody } from '../../../api/volume-types';
import { readJson } from '../../http/body';
import { sendJson, sendStatus } from '../../http/respond';
import type { Handler } from '../../router';
import type { VolumesBackend } from './backend';

function stringMap(field: string, value: unknown): Record<string, string> | null | undefined {
  if (value === undefined || value === null) return value;
  if (
    typeof value !== 'object' ||
    Array.isArray(value) ||
    Object.values(value).some((v) => typeof v !== 'string')
  )
    throw new InvalidParameterError(`${field} must be an object of strings`);
  return value as Record<string, string>;
}

/** The create body with its declared types checked, so a wrong one is a 400 naming the field. */
function createBody(raw: unknown): VolumeCreateBody {
  if (raw === undefined) return {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new InvalidParameterError('the body must be a JSON object');
  const body = raw as Record<string, unknown>;
  for (const field of ['Name', 'Driver'] as const) {
    if (body[field] !== undefined && body[field] !== null && typeof body[field] !== 'string')
      throw new InvalidParameterError(`${field} must be a string`);
  }
  return {
    Name: (body.Name as string | null) ?? undefined,
    Driver: (body.Driver as string | null) ?? undefined,
    DriverOpts: stringMap('DriverOpts', body.DriverOpts),
    Labels: stringMap('Labels', body.Labels),
  };
}

export function volumesHandlers(
  b: VolumesBackend,
): Record<'list' | 'create' | 'inspect' | 'remove' | 'prune', Handler> {
  return {
    list: async ({ res, query }) => sendJson(res, 200, await b.list(query.filters())),
    create: async ({ req, res }) =>
      sendJson(res, 201, await b.create(createBody(await readJson<unknown>(req)))),
    inspect: async ({ res, params }) => sendJson(res, 200, await b.inspect(params.name)),
    remove: async ({ res, params, query, version }) => {
      await b.remove(params.name, { force: supports(version, 'volumeRemoveForce') && query.bool('force') });
      sendStatus(res, 204);
    },
    prune: async ({ res, query }) => sendJson(res, 200, await b.prune(query.filters())),
  };
}

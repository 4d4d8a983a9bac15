// The registry browser's registries: /api/registries lists, adds (checked against /v2/ first) and
// removes them, deletes a tag, pulls into and pushes from an engine, and copies between
// registries; /registries/{id}/v2/* reads (and deletes by digest) through the registry's
// session. Credentials are used here and never answered: the renderer sees summaries only.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type {
  RegistryCopyRequest,
  RegistryPullRequest,
  RegistryPushRequest,
} from '../../../daemon/api/desktop-types';
import { RegistryRequestError, type AddedRegistries } from '../registries/added-registries';
import { copyImage, deleteTag, type ProgressMessage } from '../registries/registry-ops';
import { SvcError } from '../../../daemon/api/errors';
import { answerStatus, RegistryAccessError, type RegistrySession } from '../registries/registry-session';
import { upstreamPath } from './access';
import { readJsonBody, sendError, sendJson } from './responses';
import { upstreamOptions, type Route, type Upstreams } from './upstream';

/** The renderer's name for the embedded svcd (renderer/src/api/engine-target.ts). */
const EMBEDDED_ENGINE = 'local';

/** Registry answers the browser reads; the rest (hop-by-hop, cookies) stay here. */
const PASSED_HEADERS = [
  'content-type',
  'content-length',
  'docker-content-digest',
  'svc-content-digest',
  'link',
  'etag',
];

export const REGISTRY_PROXY = /^\/registries\/([^/]+)(\/v2(?:\/.*)?)$/;

export async function proxyRegistry(
  req: IncomingMessage,
  res: ServerResponse,
  registries: AddedRegistries,
  id: string,
): Promise<void> {
  const method = req.method ?? 'GET';
  if (!['GET', 'HEAD', 'DELETE'].includes(method))
    return sendError(res, 405, `${method} is not passed to registries (GET, HEAD and DELETE are)`);
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  try {
    const session = registries.session(id);
    const path = upstreamPath(req.url ?? '/', `/registries/${encodeURIComponent(id)}`);
    const accept = req.headers.accept;
    const up = await session.fetch(path, {
      method,
      headers: accept ? { accept } : {},
      signal: abort.signal,
    });
    const headers: Record<string, string> = { 'cache-control': 'no-store' };
    for (const h of PASSED_HEADERS) {
      const v = up.headers.get(h);
      if (v !== null) headers[h] = v;
    }
    res.writeHead(up.status, headers);
    if (method === 'HEAD') return void (up.discard(), res.end());
    up.body.on('error', () => res.destroy()).pipe(res);
  } catch (err) {
    failWith(res, err);
  }
}

export async function handleRegistriesApi(
  req: IncomingMessage,
  res: ServerResponse,
  rest: string[],
  registries: AddedRegistries,
  upstreams: Upstreams,
): Promise<void> {
  const id = rest[0] === undefined ? undefined : decodeURIComponent(rest[0]);
  const action = `${req.method} ${rest.length > 1 ? rest[1] : rest.length ? '{id}' : ''}`;
  try {
    if (action === 'GET ') return sendJson(res, 200, registries.list());
    if (action === 'POST ') return sendJson(res, 201, await registries.add(await readJsonBody(req)));
    if (action === 'POST {id}' && id === 'copy') return await copy(req, res, registries);
    if (action === 'DELETE {id}') {
      registries.remove(id!);
      return void res.writeHead(204).end();
    }
    if (rest.length === 2 && id !== undefined && req.method === 'POST') {
      const session = registries.session(id);
      const body = (await readJsonBody(req)) as Record<string, unknown> | undefined;
      if (rest[1] === 'untag') {
        const { repository, tag } = fields(body, ['repository', 'tag']);
        await deleteTag(session, repository, tag);
        return void res.writeHead(204).end();
      }
      if (rest[1] === 'pull')
        return await pull(res, session, fields(body, ['engine', 'repository', 'tag']), upstreams);
      if (rest[1] === 'push')
        return await push(res, session, fields(body, ['engine', 'image', 'repository', 'tag']), upstreams);
    }
    sendError(res, 404, `no such endpoint: ${req.method} /api/registries/${rest.join('/')}`);
  } catch (err) {
    failWith(res, err);
  }
}

function failWith(res: ServerResponse, err: unknown): void {
  if (res.headersSent) return void res.destroy();
  if (err instanceof RegistryRequestError || err instanceof RegistryAccessError)
    return sendError(res, err.status, err.message);
  if (err instanceof SvcError) return sendError(res, answerStatus(err), err.message);
  if ((err as Error).name === 'AbortError') return void res.destroy();
  sendError(res, 500, (err as Error).message);
}

function fields<K extends string>(body: Record<string, unknown> | undefined, keys: K[]): Record<K, string> {
  const out = {} as Record<K, string>;
  for (const k of keys) {
    const v = body?.[k];
    if (typeof v !== 'string' || !v.trim()) throw new RegistryRequestError(400, `${k} is required`);
    out[k] = v.trim();
  }
  return out;
}

/** A call to engine `id` (the embedded svcd or an added one), answered as it comes. */
function engineCall(
  upstreams: Upstreams,
  engineId: string,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<IncomingMessage> {
  const route: Route =
    engineId === EMBEDDED_ENGINE
      ? { prefix: '/engine', target: 'engine' }
      : { prefix: `/engines/${engineId}`, target: 'added', engineId };
  if (route.target === 'added' && !upstreams.engines?.target(engineId))
    return Promise.reject(new RegistryRequestError(404, `no such engine: ${engineId}`));
  const opts = upstreamOptions(route, upstreams, path);
  return new Promise((resolve, reject) => {
    const req = http.request({ ...opts, method, headers: { ...opts.headers, ...headers } }, resolve);
    req.on('error', (err) =>
      reject(new RegistryAccessError(502, `the engine is not answering: ${err.message}`)),
    );
    req.end();
  });
}

/** Passes the engine's answer on: its progress stream, or its refusal with its status. */
function relay(res: ServerResponse, up: IncomingMessage): void {
  res.writeHead(up.statusCode ?? 502, {
    'content-type': up.headers['content-type'] ?? 'application/json',
    'cache-control': 'no-store',
  });
  res.flushHeaders();
  up.pipe(res);
  // The browser going away cancels the pull or push, as closing a docker CLI does.
  res.on('close', () => up.destroy());
}

function authHeaders(session: RegistrySession): Record<string, string> {
  const auth = session.engineAuthHeader();
  return auth ? { 'x-registry-auth': auth } : {};
}

async function pull(
  res: ServerResponse,
  session: RegistrySession,
  b: Record<keyof RegistryPullRequest, string>,
  upstreams: Upstreams,
): Promise<void> {
  // A digest goes in the name (repo@sha256:…), as the docker CLI sends it.
  const byDigest = /^[a-z0-9]+:[a-f0-9]{32,}$/.test(b.tag);
  const q = new URLSearchParams(
    byDigest
      ? { fromImage: `${session.host}/${b.repository}@${b.tag}` }
      : { fromImage: `${session.host}/${b.repository}`, tag: b.tag },
  );
  relay(res, await engineCall(upstreams, b.engine, 'POST', `/images/create?${q}`, authHeaders(session)));
}

async function push(
  res: ServerResponse,
  session: RegistrySession,
  b: Record<keyof RegistryPushRequest, string>,
  upstreams: Upstreams,
): Promise<void> {
  const target = `${session.host}/${b.repository}`;
  const q = new URLSearchParams({ repo: target, tag: b.tag });
  const tagged = await engineCall(
    upstreams,
    b.engine,
    'POST',
    `/images/${encodeURIComponent(b.image)}/tag?${q}`,
    {},
  );
  if (tagged.statusCode !== 201) return relay(res, tagged);
  tagged.resume();
  const path = `/images/${encodeURIComponent(target)}/push?${new URLSearchParams({ tag: b.tag })}`;
  relay(res, await engineCall(upstreams, b.engine, 'POST', path, authHeaders(session)));
}

async function copy(req: IncomingMessage, res: ServerResponse, registries: AddedRegistries): Promise<void> {
  const body = (await readJsonBody(req)) as Partial<RegistryCopyRequest> | undefined;
  const from = fields(body?.from as Record<string, unknown>, ['registry', 'repository', 'reference']);
  const to = fields(body?.to as Record<string, unknown>, ['registry', 'repository', 'tag']);
  const source = {
    session: registries.session(from.registry),
    repository: from.repository,
    reference: from.reference,
  };
  const target = { session: registries.session(to.registry), repository: to.repository, tag: to.tag };
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  res.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
  res.flushHeaders();
  const emit = (m: ProgressMessage) => res.write(`${JSON.stringify(m)}\n`);
  try {
    const digest = await copyImage(source, target, emit, abort.signal);
    emit({ status: `Digest: ${digest}` });
  } catch (err) {
    // The stream has begun: the failure is its last line, as the engine ends a failed pull.
    const message = (err as Error).message;
    emit({ error: message, errorDetail: { message } });
  }
  res.end();
}

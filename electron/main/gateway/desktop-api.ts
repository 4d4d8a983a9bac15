// The gateway's own endpoints under /api: supervisor state (snapshot and a Server-Sent Events
// stream), the servers' log files, a manual restart, the app's and servers' resource use, whether
// a host port is free (host-port.ts), and the engines added in Settings (engines-api.ts) and the
// registry browser's registries (registries-api.ts).
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DesktopState, EngineChoice, EngineModePreference } from '../../../daemon/api/desktop-types';
import type { ServiceState } from '../supervisor/service-state';
import type { AddedRegistries } from '../registries/added-registries';
import { engineModePreferences, isEngineModePreference } from '../supervisor/engine-choice';
import { handleComposeApi } from './compose-api';
import { handleEnginesApi } from './engines-api';
import { checkHostPort } from './host-port';
import { handleRegistriesApi } from './registries-api';
import type { Upstreams } from './upstream';
import { engineHelpers, procUsage } from './proc-usage';
import { readJsonBody, sendError, sendJson } from './responses';

/** What the gateway needs of the supervisor (the Supervisor class satisfies it). */
export interface ServiceControl {
  states(): ServiceState[];
  state(name: string): ServiceState | undefined;
  restart(name: string): Promise<boolean>;
  on(event: 'state', listener: (s: ServiceState) => void): unknown;
  off(event: 'state', listener: (s: ServiceState) => void): unknown;
}

/** The app's preferences (SettingsFile satisfies it). */
export interface SettingsStore {
  read(): object;
  update(patch: Record<string, unknown>): object;
}

/** The engine mode in use and the way to pick another (desktop.ts). */
export interface EngineModeControl {
  current(): EngineChoice;
  select(preference: EngineModePreference): Promise<EngineChoice>;
}

export interface DesktopApiParts extends Upstreams {
  services: ServiceControl;
  settings?: SettingsStore;
  engineMode?: EngineModeControl;
  registries?: AddedRegistries;
}

/** One call of an /api route: the request, the parts it serves, the path's `:name` segments. */
interface ApiCall {
  req: IncomingMessage;
  res: ServerResponse;
  api: DesktopApiParts;
  url: URL;
  params: string[];
  /** What a `*` at the pattern's end took: the sub-API's own path. */
  rest: string[];
}

/**
 * A route under /api. `path` is matched segment by segment: a word itself, `:name` any one
 * segment (into params), `*` at the end any rest. `needs` names an optional part of the app:
 * absent, the route does not exist. No method: the sub-API dispatches on it itself.
 */
interface ApiRoute {
  method?: 'GET' | 'PUT' | 'POST';
  path: string;
  needs?: 'engines' | 'registries' | 'settings' | 'engineMode';
  handle(call: ApiCall): void | Promise<void>;
}

const API_ROUTES: ApiRoute[] = [
  {
    path: 'engines/*',
    needs: 'engines',
    handle: ({ req, res, rest, api }) => handleEnginesApi(req, res, rest, api.engines!),
  },
  {
    path: 'registries/*',
    needs: 'registries',
    handle: ({ req, res, rest, api }) => handleRegistriesApi(req, res, rest, api.registries!, api),
  },
  { path: 'compose', handle: ({ req, res, api }) => handleComposeApi(req, res, undefined, api) },
  {
    path: 'compose/:action',
    handle: ({ req, res, params, api }) => handleComposeApi(req, res, params[0], api),
  },
  { method: 'GET', path: 'state', handle: ({ res, api }) => sendJson(res, 200, snapshot(api.services)) },
  { method: 'GET', path: 'state/stream', handle: ({ req, res, api }) => streamState(req, res, api.services) },
  {
    method: 'GET',
    path: 'settings',
    needs: 'settings',
    handle: ({ res, api }) => sendJson(res, 200, api.settings!.read()),
  },
  {
    method: 'PUT',
    path: 'settings',
    needs: 'settings',
    handle: ({ req, res, api }) => updateSettings(req, res, api.settings!),
  },
  {
    method: 'GET',
    path: 'engine-mode',
    needs: 'engineMode',
    handle: ({ res, api }) => sendJson(res, 200, api.engineMode!.current()),
  },
  {
    method: 'PUT',
    path: 'engine-mode',
    needs: 'engineMode',
    handle: ({ req, res, api }) => selectEngineMode(req, res, api.engineMode!),
  },
  { method: 'GET', path: 'host-ports/:port', handle: ({ res, params }) => hostPort(res, params[0]) },
  {
    method: 'GET',
    path: 'services/:name/log',
    handle: ({ res, params, api, url }) =>
      withService(res, api.services, params[0], (s) => sendLog(res, s, url.searchParams.get('tail'))),
  },
  {
    method: 'POST',
    path: 'services/:name/restart',
    handle: ({ res, params, api }) =>
      withService(res, api.services, params[0], (s) => {
        void api.services.restart(s.name);
        sendJson(res, 202, { message: `restarting ${s.name}` });
      }),
  },
];

/** The path's segments against a route's pattern: its params and rest, or undefined. */
function matchPath(pattern: string, parts: string[]): { params: string[]; rest: string[] } | undefined {
  const segments = pattern.split('/');
  const params: string[] = [];
  for (const [i, segment] of segments.entries()) {
    if (segment === '*') return { params, rest: parts.slice(i) };
    if (parts[i] === undefined) return undefined;
    if (segment.startsWith(':')) params.push(parts[i]);
    else if (segment !== parts[i]) return undefined;
  }
  return parts.length === segments.length ? { params, rest: [] } : undefined;
}

export function handleDesktopApi(req: IncomingMessage, res: ServerResponse, api: DesktopApiParts): void {
  const url = new URL(req.url ?? '/', 'http://gateway');
  const parts = url.pathname.split('/').filter(Boolean).slice(1); // after 'api'
  for (const route of API_ROUTES) {
    if (route.method && route.method !== req.method) continue;
    if (route.needs && !api[route.needs]) continue;
    const matched = matchPath(route.path, parts);
    if (matched) return void route.handle({ req, res, api, url, ...matched });
  }
  sendError(res, 404, `no such endpoint: ${req.method} ${url.pathname}`);
}

function hostPort(res: ServerResponse, text: string): void {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    return sendError(res, 400, `port must be a number from 1 to 65535, not ${text}`);
  void checkHostPort(port).then((answer) => sendJson(res, 200, answer));
}

function withService(
  res: ServerResponse,
  services: ServiceControl,
  encoded: string,
  then: (service: ServiceState) => void,
): void {
  const name = decodeURIComponent(encoded);
  const service = services.state(name);
  if (!service) return sendError(res, 404, `no such service: ${name}`);
  then(service);
}

function snapshot(services: ServiceControl): DesktopState {
  const running = services.states().flatMap((s) => (s.pid ? [{ label: s.name, pid: s.pid }] : []));
  const svcd = running.find((s) => s.label === 'svcd');
  const all = [...running, ...(svcd ? engineHelpers(svcd.pid) : [])];
  return {
    services: services.states(),
    usage: {
      app: procUsage(process.pid),
      ...Object.fromEntries(all.map((p) => [p.label, procUsage(p.pid)])),
    },
  };
}

function streamState(req: IncomingMessage, res: ServerResponse, services: ServiceControl): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
  });
  const send = (s: ServiceState) => res.write(`event: state\ndata: ${JSON.stringify(s)}\n\n`);
  services.states().forEach(send);
  services.on('state', send);
  req.on('close', () => services.off('state', send));
}

/** The whole log by default (downloads are never capped); ?tail=N bytes for a quick look. */
function sendLog(res: ServerResponse, service: ServiceState, tail: string | null): void {
  if (service.external)
    return sendError(res, 404, `${service.name} is not run by the app: it keeps no log of it`);
  if (!existsSync(service.logFile)) return sendError(res, 404, `${service.name} has not written a log yet`);
  const size = statSync(service.logFile).size;
  const start = tail ? Math.max(0, size - Number(tail)) : 0;
  res.writeHead(200, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': size - start,
    'cache-control': 'no-store',
  });
  createReadStream(service.logFile, { start, end: Math.max(start, size - 1) }).pipe(res);
}

async function updateSettings(
  req: IncomingMessage,
  res: ServerResponse,
  settings: SettingsStore,
): Promise<void> {
  const patch = await readJsonBody(req);
  if (typeof patch !== 'object' || patch === null)
    return sendError(res, 400, 'settings must be a JSON object');
  sendJson(res, 200, settings.update(patch as Record<string, unknown>));
}

/** PUT /api/engine-mode {preference}: kept in the settings file, applied at once. */
async function selectEngineMode(
  req: IncomingMessage,
  res: ServerResponse,
  engineMode: EngineModeControl,
): Promise<void> {
  const body = (await readJsonBody(req)) as { preference?: unknown } | null;
  const preference = body?.preference;
  if (!isEngineModePreference(preference))
    return sendError(res, 400, `preference must be one of ${engineModePreferences.join(', ')}`);
  if (preference !== 'auto' && !engineMode.current().available.includes(preference))
    return sendError(
      res,
      400,
      `${preference} is not available here (${preference === 'rootful' ? 'only as root' : 'not as root'})`,
    );
  sendJson(res, 200, await engineMode.select(preference));
}

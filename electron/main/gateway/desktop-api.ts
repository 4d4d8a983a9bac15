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

export function handleDesktopApi(req: IncomingMessage, res: ServerResponse, api: DesktopApiParts): void {
  const { services, settings, engines, engineMode, registries } = api;
  const url = new URL(req.url ?? '/', 'http://gateway');
  const parts = url.pathname.split('/').filter(Boolean); // ['api', ...]
  if (engines && parts[1] === 'engines') return void handleEnginesApi(req, res, parts.slice(2), engines);
  if (registries && parts[1] === 'registries')
    return void handleRegistriesApi(req, res, parts.slice(2), registries, api);
  if (parts[1] === 'compose' && parts.length <= 3) return void handleComposeApi(req, res, parts[2], api);
  const route = `${req.method} /${parts.slice(1, 2).join('/')}`;
  if (route === 'GET /state' && parts.length === 2) return sendJson(res, 200, snapshot(services));
  if (settings && route === 'GET /settings') return sendJson(res, 200, settings.read());
  if (settings && route === 'PUT /settings') return void updateSettings(req, res, settings);
  if (engineMode && route === 'GET /engine-mode') return sendJson(res, 200, engineMode.current());
  if (engineMode && route === 'PUT /engine-mode') return void selectEngineMode(req, res, engineMode);
  if (route === 'GET /state' && parts[2] === 'stream') return streamState(req, res, services);
  if (route === 'GET /host-ports' && parts.length === 3) {
    const port = Number(parts[2]);
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      return sendError(res, 400, `port must be a number from 1 to 65535, not ${parts[2]}`);
    return void checkHostPort(port).then((answer) => sendJson(res, 200, answer));
  }
  if (parts[1] === 'services' && parts.length === 4) {
    const name = decodeURIComponent(parts[2]);
    const service = services.state(name);
    if (!service) return sendError(res, 404, `no such service: ${name}`);
    if (req.method === 'GET' && parts[3] === 'log')
      return sendLog(res, service, url.searchParams.get('tail'));
    if (req.method === 'POST' && parts[3] === 'restart') {
      void services.restart(name);
      return sendJson(res, 202, { message: `restarting ${name}` });
    }
  }
  sendError(res, 404, `no such endpoint: ${req.method} ${url.pathname}`);
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

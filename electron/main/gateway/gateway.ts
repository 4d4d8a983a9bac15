// The renderer's only door: an HTTP server on 127.0.0.1 with a random port and a per-launch
// token. /engine/* goes to svcd, /engines/{id}/* to an engine added in Settings, /registry/* to
// the registry, /registries/{id}/v2/* to a registry of the registry browser (with its stored
// credentials), /api/* is the supervisor's state, the added engines and registries; everything
// else is the built renderer.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { checkAccess, checkHost, type Allowed } from './access';
import {
  handleDesktopApi,
  type EngineModeControl,
  type ServiceControl,
  type SettingsStore,
} from './desktop-api';
import { bridgeExec, EXEC_WS_PATH } from './exec-bridge';
import { proxyHttp } from './http-proxy';
import type { AddedRegistries } from '../registries/added-registries';
import { proxyRegistry, REGISTRY_PROXY } from './registries-api';
import { LOG_FILE_PATH, sendLogFile } from './log-download';
import { refuseUpgrade, sendError } from './responses';
import { serveStatic } from './static-files';
import { LAYER_FILES_PATH, sendLayerFiles } from './image-layers';
import { sendStatsSamples, STATS_SAMPLES_PATH } from './stats-samples';
import { engineTarget, routeOf, type Upstreams } from './upstream';
import { proxyUpgrade } from './upgrade-proxy';

export interface GatewayOptions extends Upstreams {
  services: ServiceControl;
  /** The app's preferences, served on /api/settings. */
  settings?: SettingsStore;
  /** The registry browser's registries; absent, /registries/* and /api/registries answer 404. */
  registries?: AddedRegistries;
  /** The engine mode, served on /api/engine-mode. */
  engineMode?: EngineModeControl;
  /** The built renderer; absent in tests that only proxy. */
  rendererDir?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Fixed for tests; random otherwise. */
  token?: string;
}

export interface Gateway {
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

/**
 * One of the gateway's routes: `take` answers how it serves a request, or undefined when the
 * request is not its own; `access` is the check the request passes first (the token, or for the
 * renderer's files only the Host).
 */
interface GatewayRoute {
  access: 'token' | 'host';
  take(req: IncomingMessage, pathname: string): ((res: ServerResponse) => void) | undefined;
}

/** The gateway's own views of an engine, computed from its standard answers (GET only). */
const ENGINE_VIEWS = [
  { path: LOG_FILE_PATH, send: sendLogFile },
  { path: LAYER_FILES_PATH, send: sendLayerFiles },
  { path: STATS_SAMPLES_PATH, send: sendStatsSamples },
];

/** The routes in the order they are tried; the last takes every request left. */
function gatewayRoutes(options: GatewayOptions, agent: http.Agent, origin: () => string): GatewayRoute[] {
  return [
    {
      access: 'token',
      take: (req, pathname) => {
        const registry = REGISTRY_PROXY.exec(pathname);
        const registries = options.registries;
        if (!registry || !registries) return undefined;
        return (res) => void proxyRegistry(req, res, registries, decodeURIComponent(registry[1]));
      },
    },
    {
      access: 'token',
      take: (req, pathname) =>
        pathname === '/api' || pathname.startsWith('/api/')
          ? (res) => handleDesktopApi(req, res, options)
          : undefined,
    },
    {
      access: 'token',
      take: (req, pathname) => {
        const route = routeOf(pathname);
        if (!route) return undefined;
        return (res) => {
          if (route.target === 'added' && !engineTarget(route, options))
            return sendError(res, 404, `no such engine: ${route.engineId}`);
          const own =
            req.method === 'GET' && route.target !== 'registry' ? pathname.slice(route.prefix.length) : '';
          for (const view of ENGINE_VIEWS) {
            const match = view.path.exec(own);
            if (match) return void view.send(req, res, route, options, decodeURIComponent(match[1]));
          }
          proxyHttp(req, res, route, options, agent);
        };
      },
    },
    {
      access: 'host',
      take: (req) => (res) => serveStatic(req, res, options.rendererDir ?? '', origin()),
    },
  ];
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const allowed: Allowed = { origins: new Set(), hosts: new Set() };
  let origin = '';
  // Our own pool of upstream connections, so closing the gateway leaves none behind.
  const agent = new http.Agent({ keepAlive: true });

  const routes = gatewayRoutes(options, agent, () => origin);
  const server = http.createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://gateway').pathname;
    for (const route of routes) {
      const handle = route.take(req, pathname);
      if (!handle) continue;
      const verdict =
        route.access === 'token' ? checkAccess(req, token, allowed) : checkHost(req, allowed.hosts);
      if (!verdict.ok) return sendError(res, verdict.status, verdict.message);
      return handle(res);
    }
  });

  // Upgraded connections leave the server's own tracking; closing the gateway ends them too.
  const upgraded = new Set<Duplex>();
  server.on('upgrade', (req, socket, head) => {
    upgraded.add(socket);
    socket.on('close', () => upgraded.delete(socket));
    socket.on('error', () => socket.destroy());
    const pathname = new URL(req.url ?? '/', 'http://gateway').pathname;
    const verdict = checkAccess(req, token, allowed);
    if (!verdict.ok) return refuseUpgrade(socket, verdict.status, verdict.message);
    const route = routeOf(pathname);
    const target = route && engineTarget(route, options);
    if (!route || !target) return refuseUpgrade(socket, 404, `no upgrade on ${pathname}`);
    const exec = EXEC_WS_PATH.exec(pathname);
    if (exec) return bridgeExec(req, socket, head, target, decodeURIComponent(exec[3]));
    proxyUpgrade(req, socket, head, route, target);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  allowed.origins.add(origin).add(`http://localhost:${port}`);
  allowed.hosts.add(`127.0.0.1:${port}`).add(`localhost:${port}`);

  return {
    url: origin,
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
        options.engines?.close();
        for (const s of upgraded) s.destroy();
      }),
  };
}

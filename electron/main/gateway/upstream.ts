// Where the gateway's prefixes lead: /engine to svcd's unix socket, /engines/{id} to an engine
// the user added (over its own transport), /registry to the registry's loopback URL. Headers
// that belong to one hop, or to the gateway itself, stop here.
import net from 'node:net';
import type { IncomingHttpHeaders, OutgoingHttpHeaders, RequestOptions } from 'node:http';
import type { AddedEngines, EngineTarget } from '../engines/added-engines';

export interface Upstreams {
  engineSocket: string;
  registryUrl: string;
  /** Engines added in Settings; absent, /engines/* answers 404. */
  engines?: AddedEngines;
}

export type Route =
  | { prefix: '/engine'; target: 'engine' }
  | { prefix: '/registry'; target: 'registry' }
  | { prefix: string; target: 'added'; engineId: string };

const ADDED = /^\/engines\/([^/]+)(?:\/|$)/;

export function routeOf(pathname: string): Route | undefined {
  if (pathname === '/engine' || pathname.startsWith('/engine/'))
    return { prefix: '/engine', target: 'engine' };
  if (pathname === '/registry' || pathname.startsWith('/registry/'))
    return { prefix: '/registry', target: 'registry' };
  const added = ADDED.exec(pathname);
  if (added)
    return { prefix: `/engines/${added[1]}`, target: 'added', engineId: decodeURIComponent(added[1]) };
  return undefined;
}

/** An engine route's connections: the embedded svcd's socket, or the added engine's transport. */
export function engineTarget(route: Route, upstreams: Upstreams): Omit<EngineTarget, 'agent'> | undefined {
  if (route.target === 'engine')
    return { dial: () => net.connect({ path: upstreams.engineSocket, allowHalfOpen: true }), host: 'svcd' };
  if (route.target === 'added') return upstreams.engines?.target(route.engineId);
  return undefined;
}

/** The upstream's name in the gateway's own errors. */
export function upstreamLabel(route: Route): string {
  return route.target === 'added' ? `engine ${route.engineId}` : route.target;
}

export function upstreamOptions(route: Route, upstreams: Upstreams, path: string): RequestOptions {
  if (route.target === 'engine')
    return { socketPath: upstreams.engineSocket, path, headers: { host: 'svcd' } };
  if (route.target === 'added') {
    // The gateway checked the engine exists before proxying.
    const target = upstreams.engines!.target(route.engineId)!;
    return { agent: target.agent, path, headers: { host: target.host } };
  }
  const u = new URL(upstreams.registryUrl);
  return {
    host: u.hostname,
    port: u.port,
    path: u.pathname.replace(/\/$/, '') + path,
    headers: { host: u.host },
  };
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);
// The gateway token and the browser's identity are ours, never the servers'.
const GATEWAY_ONLY = new Set(['authorization', 'origin', 'cookie', 'referer']);

export function forwardRequestHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v !== undefined && !HOP_BY_HOP.has(k) && !GATEWAY_ONLY.has(k) && !k.startsWith('sec-')) out[k] = v;
  }
  return out;
}

export function forwardResponseHeaders(headers: IncomingHttpHeaders, prefix: string): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  }
  // Registry upload locations are paths on the registry; the browser reaches them through us.
  const loc = out.location;
  if (typeof loc === 'string' && loc.startsWith('/')) out.location = prefix + loc;
  return out;
}

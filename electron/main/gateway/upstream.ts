// Where the gateway's two prefixes lead: /engine to svcd's unix socket, /registry to the
// registry's loopback URL. Headers that belong to one hop, or to the gateway itself, stop here.
import type { IncomingHttpHeaders, OutgoingHttpHeaders, RequestOptions } from 'node:http';

export interface Upstreams {
  engineSocket: string;
  registryUrl: string;
}

export type Route = { prefix: '/engine'; target: 'engine' } | { prefix: '/registry'; target: 'registry' };

export function routeOf(pathname: string): Route | undefined {
  if (pathname === '/engine' || pathname.startsWith('/engine/'))
    return { prefix: '/engine', target: 'engine' };
  if (pathname === '/registry' || pathname.startsWith('/registry/'))
    return { prefix: '/registry', target: 'registry' };
  return undefined;
}

export function upstreamOptions(route: Route, upstreams: Upstreams, path: string): RequestOptions {
  if (route.target === 'engine')
    return { socketPath: upstreams.engineSocket, path, headers: { host: 'svcd' } };
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

// Who may use the gateway: a caller holding this launch's token (Authorization: Bearer, or
// ?token= where a browser cannot set headers: WebSocket, EventSource, downloads), from our own
// origin or from no browser origin at all.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export type AccessVerdict = { ok: true } | { ok: false; status: 401 | 403; message: string };

export interface Allowed {
  /** Our own origins, e.g. http://127.0.0.1:PORT */
  origins: Set<string>;
  /** Our own Host header values, e.g. 127.0.0.1:PORT */
  hosts: Set<string>;
}

export function checkAccess(req: IncomingMessage, token: string, allowed: Allowed): AccessVerdict {
  const host = checkHost(req, allowed.hosts);
  if (!host.ok) return host;
  const origin = req.headers.origin;
  if (origin !== undefined && !allowed.origins.has(origin)) {
    return { ok: false, status: 403, message: `origin ${origin} is not allowed` };
  }
  // A browser without Origin on a GET still tells us where the request came from.
  if (origin === undefined && req.headers['sec-fetch-site'] === 'cross-site') {
    return { ok: false, status: 403, message: 'cross-site requests are not allowed' };
  }
  const given = presentedToken(req);
  if (given === undefined || !sameSecret(given, token)) {
    return { ok: false, status: 401, message: 'missing or wrong gateway token' };
  }
  return { ok: true };
}

/**
 * Against DNS rebinding: a page of another site whose name was made to resolve to 127.0.0.1
 * talks to us "same-origin", with its own name in Host. Only our own names are answered.
 */
export function checkHost(req: IncomingMessage, hosts: Set<string>): AccessVerdict {
  const host = req.headers.host ?? '';
  return hosts.has(host.toLowerCase())
    ? { ok: true }
    : { ok: false, status: 403, message: `host ${JSON.stringify(host)} is not this gateway's` };
}

function presentedToken(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) return auth.slice('Bearer '.length).trim();
  return new URL(req.url ?? '/', 'http://gateway').searchParams.get('token') ?? undefined;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The path and query to send upstream: our prefix and our token removed. */
export function upstreamPath(url: string, prefix: string): string {
  const u = new URL(url, 'http://gateway');
  u.searchParams.delete('token');
  return (u.pathname.slice(prefix.length) || '/') + u.search;
}

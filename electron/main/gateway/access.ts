// Who may use the gateway: a caller holding this launch's token (Authorization: Bearer, or
// ?token= where a browser cannot set headers: WebSocket, EventSource, downloads), from our own
// origin or from no browser origin at all.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export type AccessVerdict = { ok: true } | { ok: false; status: 401 | 403; message: string };

export function checkAccess(req: IncomingMessage, token: string, allowedOrigins: Set<string>): AccessVerdict {
  const origin = req.headers.origin;
  if (origin !== undefined && !allowedOrigins.has(origin)) {
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

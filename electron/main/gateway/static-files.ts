// The built renderer (renderer/dist), for web mode and for Electron's window alike, under a
// strict Content-Security-Policy: our own scripts only, no inline script, no framing.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError } from './responses';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

export function contentSecurityPolicy(origin: string): string {
  const ws = origin.replace(/^http/, 'ws');
  return [
    "default-src 'none'",
    "script-src 'self'",
    // React and xterm.js set style attributes; no inline script is ever allowed.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self' ${ws}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

export function serveStatic(req: IncomingMessage, res: ServerResponse, dir: string, origin: string): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 405, 'method not allowed');
  if (!existsSync(join(dir, 'index.html'))) {
    return sendError(res, 503, `the renderer is not built (${dir}): run npm run build:renderer`);
  }
  const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://gateway').pathname);
  const candidate = normalize(join(dir, pathname));
  if (candidate !== dir && !candidate.startsWith(dir + sep))
    return sendError(res, 403, 'outside the renderer');
  // Client-side routes fall back to index.html; a missing asset stays a 404.
  const isFile = existsSync(candidate) && statSync(candidate).isFile();
  if (!isFile && extname(pathname)) return sendError(res, 404, `no such file: ${pathname}`);
  const file = isFile ? candidate : join(dir, 'index.html');
  const hashedAsset = file.includes(`${sep}assets${sep}`);
  res.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'content-security-policy': contentSecurityPolicy(origin),
    'x-content-type-options': 'nosniff',
    // The page URL carries the token: never hand it to another site.
    'referrer-policy': 'no-referrer',
    'cache-control': hashedAsset ? 'public, max-age=31536000, immutable' : 'no-store',
  });
  if (req.method === 'HEAD') return void res.end();
  createReadStream(file).pipe(res);
}

// WebSocket (and other upgrade) requests on /engine/* (and /engines/{id}/*) passed to the engine
// as they are: the handshake is replayed on a fresh connection and then bytes flow both ways untouched.
// Not requestHijack: that one asks for `Upgrade: tcp`, while here the browser's own WebSocket
// handshake must reach svcd unchanged so svcd answers its key.
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import { upstreamPath } from './access';
import type { EngineTarget } from '../engines/added-engines';
import { forwardRequestHeaders, upstreamLabel, type Route } from './upstream';
import { refuseUpgrade } from './responses';

export function proxyUpgrade(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  route: Route,
  target: Omit<EngineTarget, 'agent'>,
): void {
  const upstream = target.dial();
  const headers: OutgoingHttpHeaders = {
    ...forwardRequestHeaders(req.headers),
    host: target.host,
    connection: 'Upgrade',
    upgrade: req.headers.upgrade,
  };
  // WebSocket handshake headers are end-to-end here: svcd answers the browser's key.
  for (const [k, v] of Object.entries(req.headers)) if (k.startsWith('sec-websocket-')) headers[k] = v;
  const lines = [`${req.method} ${upstreamPath(req.url ?? '/', route.prefix)} HTTP/1.1`];
  for (const [k, v] of Object.entries(headers)) {
    for (const one of Array.isArray(v) ? v : v === undefined ? [] : [String(v)]) lines.push(`${k}: ${one}`);
  }
  // Written at once: a socket, a TLS session and an ssh pipe all hold writes until connected.
  upstream.write(lines.join('\r\n') + '\r\n\r\n');
  if (head.length) upstream.write(head);
  let answered = false;
  upstream.once('data', () => (answered = true));
  upstream.pipe(client);
  client.pipe(upstream);
  upstream.once('error', (err) => {
    if (!answered) refuseUpgrade(client, 502, `${upstreamLabel(route)} unavailable: ${err.message}`);
    else client.destroy();
  });
  client.on('error', () => upstream.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
}

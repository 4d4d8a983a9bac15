// WebSocket (and other upgrade) requests on /engine/* passed to svcd as they are: the handshake
// is replayed on a fresh socket connection and then bytes flow both ways untouched.
// Not requestHijack: that one asks for `Upgrade: tcp`, while here the browser's own WebSocket
// handshake must reach svcd unchanged so svcd answers its key.
import net from 'node:net';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import { upstreamPath } from './access';
import { forwardRequestHeaders } from './upstream';
import { refuseUpgrade } from './responses';

export function proxyUpgrade(req: IncomingMessage, client: Duplex, head: Buffer, engineSocket: string): void {
  const upstream = net.connect(engineSocket);
  const headers: OutgoingHttpHeaders = {
    ...forwardRequestHeaders(req.headers),
    host: 'svcd',
    connection: 'Upgrade',
    upgrade: req.headers.upgrade,
  };
  // WebSocket handshake headers are end-to-end here: svcd answers the browser's key.
  for (const [k, v] of Object.entries(req.headers)) if (k.startsWith('sec-websocket-')) headers[k] = v;
  const lines = [`${req.method} ${upstreamPath(req.url ?? '/', '/engine')} HTTP/1.1`];
  for (const [k, v] of Object.entries(headers)) {
    for (const one of Array.isArray(v) ? v : v === undefined ? [] : [String(v)]) lines.push(`${k}: ${one}`);
  }
  upstream.once('connect', () => {
    upstream.write(lines.join('\r\n') + '\r\n\r\n');
    if (head.length) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.once('error', (err) => {
    if (upstream.bytesRead === 0) refuseUpgrade(client, 502, `engine unavailable: ${err.message}`);
    else client.destroy();
  });
  client.on('error', () => upstream.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
}

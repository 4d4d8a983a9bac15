// Plain HTTP through the gateway, streamed both ways: request bodies (image loads, archive
// uploads) and responses (events, logs, pull progress) pass chunk by chunk, never buffered.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { upstreamPath } from './access';
import {
  forwardRequestHeaders,
  forwardResponseHeaders,
  upstreamLabel,
  upstreamOptions,
  type Route,
  type Upstreams,
} from './upstream';
import { sendError } from './responses';

export function proxyHttp(
  req: IncomingMessage,
  res: ServerResponse,
  route: Route,
  upstreams: Upstreams,
  agent: http.Agent,
): void {
  const opts = upstreamOptions(route, upstreams, upstreamPath(req.url ?? '/', route.prefix));
  const upstream = http.request(
    {
      agent,
      ...opts,
      method: req.method,
      headers: { ...forwardRequestHeaders(req.headers), ...opts.headers },
    },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.statusMessage, forwardResponseHeaders(up.headers, route.prefix));
      // Headers go out now: a quiet stream (events) must not look like a hung request.
      res.flushHeaders();
      up.pipe(res);
      up.on('error', () => res.destroy());
    },
  );
  upstream.on('error', (err) => {
    if (res.headersSent) res.destroy();
    else sendError(res, 502, `${upstreamLabel(route)} unavailable: ${err.message}`);
  });
  // The browser going away cancels the upstream call (a pull, a follow) as Docker expects.
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}

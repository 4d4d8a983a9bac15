// What every handler receives, and the few ways it answers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sha256 } from '../../lib/digest';
import { setTwin } from '../api/headers';
import type { AuthResult } from '../auth/access';
import type { TokenIssuer } from '../auth/token-issuer';
import type { Htpasswd } from '../auth/htpasswd';
import type { RegistryConfig } from '../config';
import type { EventInput, EventSink } from '../events';
import type { RegistryStorage } from '../storage/registry-storage';

export interface RegistryServices {
  storage: RegistryStorage;
  config: RegistryConfig;
  events: EventSink;
  /** Present when token auth is on: the /token endpoint's issuer and its users. */
  tokens?: { issuer: TokenIssuer; users?: Htpasswd };
}

export interface RequestContext extends RegistryServices {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
  auth: AuthResult;
  /** scheme://host the client used, for absolute Location headers. */
  baseUrl: string;
}

export type Handler = (ctx: RequestContext) => Promise<void>;

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const body = Buffer.from(JSON.stringify(value));
  res.statusCode = status;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', body.length);
  setTwin(res, 'contentDigest', sha256(body));
  res.end(body);
}

export function sendEmpty(
  res: ServerResponse,
  status: number,
  headers: Record<string, string | number> = {},
): void {
  res.statusCode = status;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Length', 0);
  res.end();
}

export function emitEvent(ctx: RequestContext, event: Omit<EventInput, 'request' | 'actor'>): void {
  if (!ctx.events.enabled) return;
  const { req } = ctx;
  ctx.events.emit({
    ...event,
    request: {
      id: String(req.headers['x-request-id'] ?? ''),
      addr: req.socket.remoteAddress ?? '',
      host: req.headers.host ?? '',
      method: req.method ?? '',
      useragent: req.headers['user-agent'] ?? '',
    },
    actor: { name: ctx.auth.account },
  });
}

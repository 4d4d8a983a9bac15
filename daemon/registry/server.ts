// The HTTP side of the registry: matches the route table, applies rate limit, read-only mode and
// auth, runs the handler and writes every failure as the registry's JSON error body.
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { isNoSpace, noSpaceError, RegistryError } from './api/error-codes';
import { apiVersion, setTwin } from './api/headers';
import { checkRepositoryName } from './api/names';
import { matchRoute, type Operation } from './api/routes';
import { AuthError, type AccessItem, type Authorizer } from './auth/access';
import { sendJson, type RegistryServices, type RequestContext } from './handlers/context';
import { returnFreeMemorySoon } from './free-memory';
import { handlers } from './handlers';
import { RateLimiter } from './rate-limiter';

export interface RegistryServerOptions extends RegistryServices {
  authorizer: Authorizer;
  log?: (line: string) => void;
}

function neededAccess(op: Operation, name: string | undefined): AccessItem[] {
  if (op.access === 'catalog') return [{ type: 'registry', name: 'catalog', actions: ['*'] }];
  if (!name || op.access.length === 0) return [];
  return [{ type: 'repository', name, actions: [...op.access] }];
}

function writeError(res: ServerResponse, err: RegistryError): void {
  if (err instanceof AuthError && err.challenge) res.setHeader('WWW-Authenticate', err.challenge);
  sendJson(res, err.status, { errors: err.entries });
}

export function createRegistryServer(options: RegistryServerOptions): Server {
  const { config, authorizer } = options;
  const log = options.log ?? (() => undefined);
  const limiter = config.rateLimit
    ? new RateLimiter(config.rateLimit.requestsPerSecond, config.rateLimit.burst)
    : undefined;
  const scheme = config.tls ? 'https' : 'http';

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', `${scheme}://${req.headers.host ?? 'localhost'}`);
    const match = matchRoute(url.pathname);
    if (!match) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
      return;
    }
    if (url.pathname.startsWith('/v2/')) setTwin(res, 'apiVersion', apiVersion);
    const op = match.route.methods[req.method ?? ''];
    if (!op) {
      res.setHeader('Allow', Object.keys(match.route.methods).join(', '));
      throw new RegistryError('UNSUPPORTED', `method ${req.method} not allowed here`);
    }
    if (limiter) {
      const verdict = limiter.take(req.socket.remoteAddress ?? '');
      if (verdict !== true) {
        res.setHeader('Retry-After', verdict);
        throw new RegistryError('TOOMANYREQUESTS');
      }
    }
    const name = match.params.name;
    if (name !== undefined) checkRepositoryName(name);
    if (op.writes && config.readOnly) throw new RegistryError('UNSUPPORTED', 'registry is in read-only mode');
    const baseUrl = `${scheme}://${req.headers.host ?? url.host}`;
    const auth =
      op.name === 'getToken'
        ? { allows: () => false }
        : await authorizer.authorize(req, neededAccess(op, name), baseUrl);
    const ctx: RequestContext = { ...options, req, res, url, params: match.params, auth, baseUrl };
    await handlers[op.name](ctx);
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    res.once('close', returnFreeMemorySoon);
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (!req.readableEnded) res.setHeader('Connection', 'close');
      if (err instanceof RegistryError) return writeError(res, err);
      // Before the check for a client gone: an upload's body was read to its end (so the request
      // is destroyed) when the disk turned out to be full, and the client waits for the answer.
      if (isNoSpace(err)) {
        log(`${req.method} ${req.url}: ${(err as Error).message}`);
        return writeError(res, noSpaceError());
      }
      if ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || req.destroyed) return void res.destroy();
      log(`${req.method} ${req.url}: ${(err as Error).stack ?? err}`);
      writeError(res, new RegistryError('UNKNOWN', (err as Error).message));
    });
  };

  const server = config.tls
    ? createHttpsServer(
        { cert: readFileSync(config.tls.certificate), key: readFileSync(config.tls.key) },
        onRequest,
      )
    : createHttpServer(onRequest);
  // Large uploads may take longer than Node's default whole-request timeout; a stalled one (a
  // slow-body client) is cut after the idle timeout instead, and can be resumed.
  server.requestTimeout = 0;
  server.timeout = config.idleTimeoutSeconds * 1000;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 30_000;
  return server;
}

// The Engine API HTTP server: listeners, common headers, version prefix, routing, error writing.
import {
  createServer as createHttpServer,
  ServerResponse,
  type IncomingMessage,
  type Server,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { chmod, chown, mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { readFileSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { InvalidParameterError, NotFoundError } from '../api/errors';
import { absentFeature } from './absent-features';
import { compareVersions, MAX_API_VERSION, maxApiVersion } from '../api/versions';
import type { Logger } from '../lib/logger';
import { answerAfterBody, setUpgradeBody } from './http/body';
import { Query } from './http/query';
import { readUpgradeBody } from './streams/hijack';
import { writeError } from './middleware/errors';
import { splitVersion } from './middleware/version';
import { RouteTable, type Route } from './router';

export interface TlsOptions {
  cert: string;
  key: string;
  /** When set, clients must present a certificate signed by this CA. */
  ca?: string;
}

export interface EngineServerOptions {
  routes: Route[];
  logger: Logger;
  /** The `Server` header, e.g. `Svc/0.1.0 (linux)`. */
  serverHeader: string;
  experimental: boolean;
  tls?: TlsOptions;
  /** The group that owns unix sockets (mode 0660), as dockerd's --group; the process's own otherwise. */
  socketGroup?: number;
}

export type ListenAddress = { kind: 'unix'; path: string } | { kind: 'tcp'; host: string; port: number };

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Parses a `--host` value: `unix:///path` or `tcp://host:port`. */
export function parseListenAddress(value: string): ListenAddress {
  if (value.startsWith('unix://')) {
    const path = value.slice('unix://'.length);
    if (!path.startsWith('/')) throw new InvalidParameterError(`unix socket path must be absolute: ${value}`);
    return { kind: 'unix', path };
  }
  const m = /^tcp:\/\/(\[[^\]]+\]|[^:/]+):(\d+)$/.exec(value);
  if (m) return { kind: 'tcp', host: m[1], port: Number(m[2]) };
  throw new InvalidParameterError(
    `invalid --host ${JSON.stringify(value)}: expected unix:///path or tcp://host:port`,
  );
}

export class EngineServer {
  private readonly table: RouteTable;
  private readonly servers: Server[] = [];
  private readonly socketPaths: string[] = [];
  /** Hijacked connections are no longer the HTTP server's: close() ends them itself. */
  private readonly upgraded = new Set<Duplex>();

  constructor(private readonly options: EngineServerOptions) {
    this.table = new RouteTable(options.routes);
  }

  async listen(address: ListenAddress): Promise<void> {
    // Anyone who reaches the API is root on this machine: beyond loopback, only clients with a
    // certificate of our CA may reach it.
    if (address.kind === 'tcp' && !loopbackHosts.has(address.host) && !this.options.tls?.ca) {
      throw new InvalidParameterError(
        `refusing to listen on tcp://${address.host}:${address.port} without --tlsverify: only loopback addresses may be served without client certificates`,
      );
    }
    const server = this.createServer(address.kind === 'tcp' ? this.options.tls : undefined);
    if (address.kind === 'unix') {
      await mkdir(dirname(address.path), { recursive: true });
      // The caller holds the data-root lock, so a socket file left here is a dead svcd's.
      await rm(address.path, { force: true });
    }
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      const done = () => {
        server.off('error', reject);
        resolve();
      };
      if (address.kind === 'unix') server.listen(address.path, done);
      else server.listen(address.port, address.host.replace(/^\[|\]$/g, ''), done);
    });
    if (address.kind === 'unix') {
      if (this.options.socketGroup !== undefined)
        await chown(address.path, process.getuid?.() ?? 0, this.options.socketGroup);
      await chmod(address.path, 0o660);
      this.socketPaths.push(address.path);
    }
    this.servers.push(server);
  }

  async close(): Promise<void> {
    for (const socket of this.upgraded) socket.destroy();
    await Promise.all(
      this.servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            s.close(() => resolve());
            s.closeAllConnections();
          }),
      ),
    );
    for (const p of this.socketPaths) await rm(p, { force: true });
  }

  private createServer(tls?: TlsOptions): Server {
    const handler = (req: IncomingMessage, res: ServerResponse) => void this.handle(req, res);
    const server = tls
      ? createHttpsServer(
          {
            cert: readFileSync(tls.cert),
            key: readFileSync(tls.key),
            ...(tls.ca ? { ca: readFileSync(tls.ca), requestCert: true, rejectUnauthorized: true } : {}),
          },
          handler,
        )
      : createHttpServer(handler);
    // dockerd never closes an idle connection, and clients (docker-py's pool, the docker CLI,
    // our gateway) reuse theirs without a retry: closing one after Node's 5 s races a request
    // sent on it at that moment (the client sees EPIPE or a reset). Idle ones are dropped late.
    server.keepAliveTimeout = 10 * 60_000;
    // Requests with `Upgrade: tcp` (attach, exec start) arrive here; they are served by the same
    // routes, whose stream helpers take the socket over.
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (head.length > 0) socket.unshift(head);
      this.upgraded.add(socket);
      socket.once('close', () => this.upgraded.delete(socket));
      const res = new ServerResponse(req);
      res.assignSocket(socket as never);
      res.shouldKeepAlive = false;
      res.on('finish', () => socket.end());
      // The JSON body (exec start's) precedes the stream bytes on the socket: take exactly it.
      readUpgradeBody(req, socket).then(
        (body) => {
          setUpgradeBody(req, body);
          return this.handle(req, res);
        },
        (err: unknown) => writeError(res, maxApiVersion, err, this.options.logger),
      );
    });
    return server as Server;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const log = this.options.logger;
    const experimental = String(this.options.experimental);
    res.setHeader('API-Version', MAX_API_VERSION);
    res.setHeader('Svc-Experimental', experimental);
    res.setHeader('Docker-Experimental', experimental);
    res.setHeader('Server', this.options.serverHeader);
    res.setHeader('Ostype', 'linux');

    const url = new URL(req.url ?? '/', 'http://svcd');
    const { version, path, error } = splitVersion(url.pathname);
    answerAfterBody(req, res);
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    try {
      if (error) throw error;
      const matches = this.table.match(path);
      const method = req.method ?? 'GET';
      const match = matches.find(({ route }) => route.method === method);
      if (!match) throw absentFeature(method, path) ?? new NotFoundError('page not found');
      const { route, params } = match;
      if (
        (route.minVersion && compareVersions(version, route.minVersion) < 0) ||
        (route.maxVersion && compareVersions(version, route.maxVersion) > 0)
      ) {
        throw new NotFoundError(`page not found: ${method} ${path} is not in API version ${version.text}`);
      }
      log.debug('request', { method, path: url.pathname });
      await route.handler({
        req,
        res,
        version,
        params,
        query: new Query(url.searchParams),
        signal: abort.signal,
      });
    } catch (err) {
      writeError(res, version, err, log);
    }
  }
}

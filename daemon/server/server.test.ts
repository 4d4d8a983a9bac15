// The Engine API's edge over a real unix socket: version prefixes, error formats, routing, query
// conventions. The system endpoints themselves are exercised against a real svcd in svcd.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { ConflictError, NotImplementedError } from '../api/errors';
import { createLogger } from '../lib/logger';
import { engineRequest } from '../testing/engine-client';
import { readJson } from './http/body';
import { sendJson } from './http/respond';
import { EngineServer, parseListenAddress } from './server';
import { ping } from './routers/system/handlers';

describe('EngineServer', () => {
  let dir: string;
  let socket: string;
  let server: EngineServer;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-server-'));
    socket = join(dir, 'api.sock');
    server = new EngineServer({
      logger: createLogger('error'),
      serverHeader: 'Svc/test (linux)',
      experimental: false,
      routes: [
        { method: 'GET', path: '/_ping', handler: ping },
        { method: 'HEAD', path: '/_ping', handler: ping, minVersion: '1.40' },
        {
          method: 'POST',
          path: '/echo',
          handler: async ({ req, res, query }) =>
            sendJson(res, 200, {
              body: (await readJson(req)) ?? null,
              all: query.bool('all'),
              filters: Object.fromEntries(query.filters()),
            }),
        },
        {
          method: 'GET',
          path: '/images/{name*}/json',
          handler: async ({ res, params }) => sendJson(res, 200, { name: params.name }),
        },
        {
          method: 'POST',
          path: '/conflict',
          handler: async () => {
            throw new ConflictError('already in use');
          },
        },
        {
          method: 'POST',
          path: '/absent',
          handler: async () => {
            throw new NotImplementedError('swarm is not supported by svcd');
          },
        },
        {
          method: 'GET',
          path: '/crash',
          handler: async () => {
            throw new TypeError('boom');
          },
        },
      ],
    });
    await server.listen(parseListenAddress(`unix://${socket}`));
  });

  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    engineRequest(socket, method, path, { body, headers });

  test('the socket is group-accessible only (0660)', async () => {
    assert.equal((await stat(socket)).mode & 0o777, 0o660);
  });

  test('every answer carries API-Version, both experimental headers and Server', async () => {
    const r = await call('GET', '/_ping');
    assert.equal(r.status, 200);
    assert.equal(r.text(), 'OK');
    assert.equal(r.headers['api-version'], '1.41');
    assert.equal(r.headers['svc-experimental'], 'false');
    assert.equal(r.headers['docker-experimental'], 'false');
    assert.equal(r.headers['server'], 'Svc/test (linux)');
    assert.equal(r.headers['cache-control'], 'no-cache, no-store, must-revalidate');
    assert.equal(r.headers['pragma'], 'no-cache');
  });

  test('HEAD /_ping answers with no body from 1.40, and is unknown before', async () => {
    const r = await call('HEAD', '/v1.41/_ping');
    assert.equal(r.status, 200);
    assert.equal(r.body.length, 0);
    assert.equal((await call('HEAD', '/v1.39/_ping')).status, 404);
  });

  test('versions outside 1.19–1.41 are refused with 400', async () => {
    for (const v of ['1.18', '9.99', '0.1']) {
      const r = await call('GET', `/v${v}/_ping`);
      assert.equal(r.status, 400, v);
    }
    assert.match((await call('GET', '/v9.99/_ping')).json<{ message: string }>().message, /too new.*1\.41/);
    assert.match((await call('GET', '/v1.18/_ping')).text(), /too old.*1\.19/);
    assert.equal((await call('GET', '/vx.y/_ping')).status, 404);
    for (const v of ['1.19', '1.24', '1.41'])
      assert.equal((await call('GET', `/v${v}/_ping`)).status, 200, v);
  });

  test('errors are plain text below 1.24 and JSON {message} from 1.24', async () => {
    const old = await call('GET', '/v1.23/no/such/thing');
    assert.equal(old.status, 404);
    assert.match(old.headers['content-type'] ?? '', /^text\/plain/);
    assert.equal(old.text(), 'page not found\n');
    const cur = await call('GET', '/v1.24/no/such/thing');
    assert.equal(cur.status, 404);
    assert.match(cur.headers['content-type'] ?? '', /^application\/json/);
    assert.deepEqual(cur.json(), { message: 'page not found' });
  });

  test('spec resources svcd lacks say why: 501 when not built', async () => {
    const sessions = await call('POST', '/v1.41/session');
    assert.equal(sessions.status, 501);
    assert.match(sessions.json<{ message: string }>().message, /does not implement build sessions yet/);
    assert.equal((await call('POST', '/build/cancel')).status, 501);
    for (const path of ['/constructor', '/__proto__/x', '/sessionx', '/no/such/thing']) {
      assert.equal((await call('GET', path)).status, 404, path);
    }
  });

  test('typed errors map to their status codes; unexpected ones to 500 without a stack', async () => {
    assert.equal((await call('POST', '/conflict')).status, 409);
    const absent = await call('POST', '/absent');
    assert.equal(absent.status, 501);
    assert.deepEqual(absent.json(), { message: 'swarm is not supported by svcd' });
    const crash = await call('GET', '/crash');
    assert.equal(crash.status, 500);
    assert.deepEqual(crash.json(), { message: 'boom' });
  });

  test('bad JSON and a non-JSON content type are 400', async () => {
    const bad = await call('POST', '/echo', Buffer.from('{"a":'), { 'Content-Type': 'application/json' });
    assert.equal(bad.status, 400);
    assert.match(bad.json<{ message: string }>().message, /invalid JSON/);
    const wrongType = await call('POST', '/echo', Buffer.from('{}'), { 'Content-Type': 'text/plain' });
    assert.equal(wrongType.status, 400);
    const ok = await call('POST', '/echo', { Image: 'busybox' });
    assert.deepEqual(ok.json<{ body: unknown }>().body, { Image: 'busybox' });
  });

  test('boolean query values and both filter forms', async () => {
    for (const [v, want] of [
      ['1', true],
      ['True', true],
      ['true', true],
      ['0', false],
      ['False', false],
      ['false', false],
    ] as const) {
      assert.equal((await call('POST', `/echo?all=${v}`)).json<{ all: boolean }>().all, want, v);
    }
    const lists = encodeURIComponent(JSON.stringify({ status: ['running', 'exited'] }));
    assert.deepEqual((await call('POST', `/echo?filters=${lists}`)).json<{ filters: unknown }>().filters, {
      status: ['running', 'exited'],
    });
    const bools = encodeURIComponent(JSON.stringify({ dangling: { true: true } }));
    assert.deepEqual((await call('POST', `/echo?filters=${bools}`)).json<{ filters: unknown }>().filters, {
      dangling: ['true'],
    });
    assert.equal((await call('POST', '/echo?filters=%7Bnope')).status, 400);
  });

  test('greedy path parameters keep slashes (image names)', async () => {
    const r = await call('GET', '/v1.41/images/127.0.0.1:5000/a/b:latest/json');
    assert.deepEqual(r.json(), { name: '127.0.0.1:5000/a/b:latest' });
  });

  test('an upgrade request keeps its JSON body apart from the stream bytes after it', async () => {
    const body = JSON.stringify({ Detach: false, Tty: true });
    const raw = await new Promise<string>((resolve, reject) => {
      const sock = connect(socket);
      let out = '';
      sock.on('data', (d) => (out += d.toString()));
      sock.on('end', () => resolve(out));
      sock.on('error', reject);
      sock.write(
        `POST /v1.41/echo HTTP/1.1\r\nHost: d\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}stdin-bytes`,
      );
    });
    assert.match(raw, /^HTTP\/1\.1 200/);
    assert.ok(raw.endsWith(JSON.stringify({ body: JSON.parse(body), all: false, filters: {} })), raw);
  });

  test('a non-loopback TCP address is refused without client certificate checks', async () => {
    await assert.rejects(server.listen(parseListenAddress('tcp://0.0.0.0:0')), /without --tlsverify/);
  });
});

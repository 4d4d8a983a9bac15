import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { startGateway, type Gateway } from './gateway';
import { Supervisor } from '../supervisor/supervisor';
import { SettingsFile } from '../desktop-settings';

// A stand-in engine on a unix socket with just the behaviours the gateway must carry: a slow
// chunked stream, a body echo, a WebSocket attach and a hijackable exec start.
let dir: string;
let engine: http.Server;
let registry: http.Server;
let gw: Gateway;
let releaseSecondChunk: () => void = () => {};
let lastEngineRequest: { url?: string; headers: http.IncomingHttpHeaders } = { headers: {} };
let supervisor: Supervisor;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-test-'));
  const socket = join(dir, 'engine.sock');
  engine = http.createServer((req, res) => {
    lastEngineRequest = { url: req.url, headers: req.headers };
    if (req.url === '/_ping') return res.end('OK');
    if (req.url === '/stream') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"n":1}\n');
      releaseSecondChunk = () => res.end('{"n":2}\n');
      return;
    }
    if (req.url === '/echo' && req.method === 'POST') return req.pipe(res);
    if (req.url === '/containers/a1/stats?stream=false&one-shot=true')
      return res.end(JSON.stringify({ read: '2026-01-01T00:00:00Z', id: 'a1' }));
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ message: `page not found: ${req.url}` }));
  });
  const attach = new WebSocketServer({ noServer: true });
  engine.on('upgrade', (req, sock, head) => {
    if (req.url?.startsWith('/containers/abc/attach/ws')) {
      return attach.handleUpgrade(req, sock, head, (ws) => ws.on('message', (m) => ws.send(`echo:${m}`)));
    }
    const exec = /^\/exec\/([^/]+)\/start$/.exec(req.url ?? '');
    if (exec?.[1] === 'e1' && req.headers.upgrade === 'tcp') {
      // An upgraded socket is half-open on its own: end our side when the gateway ends its.
      sock.on('end', () => sock.end());
      let body = '';
      sock.once('data', (d) => {
        body = d.toString();
        sock.write('HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\n');
        sock.write('Connection: Upgrade\r\nUpgrade: tcp\r\n\r\n');
        sock.write(`started ${body}\r\n`);
        sock.on('data', (b) => sock.write(b.toString().toUpperCase()));
      });
      if (head.length) sock.emit('data', head);
      return;
    }
    const msg = JSON.stringify({ message: `No such exec instance: ${exec?.[1]}` });
    sock.end(
      `HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: ${msg.length}\r\n\r\n${msg}`,
    );
  });
  await new Promise<void>((r) => engine.listen(socket, r));
  // A real supervisor that finds the engine already answering and adopts it.
  supervisor = new Supervisor([
    {
      name: 'svcd',
      command: 'false',
      args: [],
      health: { kind: 'unix', socketPath: socket, path: '/_ping' },
      logFile: join(dir, 'svcd.log'),
      adopt: true,
    },
  ]);
  await supervisor.start();
  registry = http.createServer((req, res) => {
    if (req.url === '/v2/') return res.end('{}');
    if (req.url === '/v2/app/blobs/uploads/') {
      res.writeHead(202, { location: '/v2/app/blobs/uploads/u1' });
      return res.end();
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
  const rendererDir = join(dir, 'dist');
  mkdirSync(rendererDir);
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Svc Desktop</title>');
  gw = await startGateway({
    engineSocket: socket,
    registryUrl: `http://127.0.0.1:${(registry.address() as AddressInfo).port}`,
    rendererDir,
    services: supervisor,
    settings: new SettingsFile(join(dir, 'data')),
  });
});

after(async () => {
  await gw.close();
  await supervisor.stop();
  engine.closeAllConnections();
  await new Promise((r) => engine.close(r));
  registry.closeAllConnections();
  await new Promise((r) => registry.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const auth = () => ({ authorization: `Bearer ${gw.token}` });

describe('gateway access', () => {
  test('refuses every API request without the token (401)', async () => {
    for (const path of ['/engine/_ping', '/registry/v2/', '/api/state']) {
      const res = await fetch(gw.url + path);
      assert.equal(res.status, 401, path);
      assert.deepEqual(await res.json(), { message: 'missing or wrong gateway token' });
    }
    const wrong = await fetch(gw.url + '/engine/_ping', { headers: { authorization: 'Bearer nope' } });
    assert.equal(wrong.status, 401);
  });

  test('accepts the token as a Bearer header or ?token=, and never forwards it', async () => {
    const a = await fetch(gw.url + '/engine/_ping', { headers: auth() });
    assert.equal(await a.text(), 'OK');
    assert.equal(lastEngineRequest.headers.authorization, undefined);
    const b = await fetch(`${gw.url}/engine/_ping?token=${gw.token}`);
    assert.equal(b.status, 200);
    assert.equal(lastEngineRequest.url, '/_ping');
    const r = await fetch(gw.url + '/registry/v2/', { headers: auth() });
    assert.equal(await r.text(), '{}');
  });

  test('refuses a foreign Origin (403) even with the token, accepts its own', async () => {
    const bad = await fetch(gw.url + '/engine/_ping', {
      headers: { ...auth(), origin: 'http://evil.example' },
    });
    assert.equal(bad.status, 403);
    assert.match(((await bad.json()) as { message: string }).message, /evil\.example/);
    const good = await fetch(gw.url + '/engine/_ping', { headers: { ...auth(), origin: gw.url } });
    assert.equal(good.status, 200);
  });

  test('answers only its own Host names (DNS rebinding): 403 for another, even with the token', async () => {
    const get = (path: string, host: string) =>
      new Promise<{ status?: number; body: string }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: gw.port, path, headers: { ...auth(), host } }, (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode, body }));
          })
          .on('error', reject);
      });
    for (const path of ['/engine/_ping', '/containers', '/api/services']) {
      const bad = await get(path, `rebound.example:${gw.port}`);
      assert.equal(bad.status, 403, path);
      assert.match(bad.body, /rebound\.example/);
    }
    assert.equal((await get('/engine/_ping', `localhost:${gw.port}`)).status, 200);
    assert.equal((await get('/containers', `127.0.0.1:${gw.port}`)).status, 200);
  });

  test('serves the renderer with a strict CSP and no token needed', async () => {
    const res = await fetch(gw.url + '/containers');
    assert.equal(res.status, 200);
    assert.match(await res.text(), /Svc Desktop/);
    const csp = res.headers.get('content-security-policy')!;
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  });
});

describe('gateway proxying', () => {
  test('passes a chunked response through chunk by chunk', async () => {
    const res = await fetch(gw.url + '/engine/stream', { headers: auth() });
    assert.equal(res.headers.get('transfer-encoding'), 'chunked');
    const reader = res.body!.getReader();
    const first = await reader.read();
    // The engine has not sent the second chunk yet: the first arrived on its own.
    assert.equal(Buffer.from(first.value!).toString(), '{"n":1}\n');
    releaseSecondChunk();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read())
      rest += Buffer.from(r.value).toString();
    assert.equal(rest, '{"n":2}\n');
  });

  test('streams a request body through', async () => {
    const body = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('part one, '));
        c.enqueue(new TextEncoder().encode('part two'));
        c.close();
      },
    });
    const res = await fetch(gw.url + '/engine/echo', {
      method: 'POST',
      headers: auth(),
      body,
      duplex: 'half',
    } as RequestInit);
    assert.equal(await res.text(), 'part one, part two');
  });

  test("answers several containers' one-shot stats in one array, an engine error in its place", async () => {
    const res = await fetch(gw.url + '/engine/stats-samples/a1,b2', { headers: auth() });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), [
      { read: '2026-01-01T00:00:00Z', id: 'a1' },
      { message: 'page not found: /containers/b2/stats?stream=false&one-shot=true' },
    ]);
    const none = await fetch(gw.url + '/engine/stats-samples/,', { headers: auth() });
    assert.equal(none.status, 400);
  });

  test('keeps the engine error body and rewrites registry locations under /registry', async () => {
    const nf = await fetch(gw.url + '/engine/containers/nope/json', { headers: auth() });
    assert.equal(nf.status, 404);
    assert.deepEqual(await nf.json(), { message: 'page not found: /containers/nope/json' });
    const up = await fetch(gw.url + '/registry/v2/app/blobs/uploads/', { method: 'POST', headers: auth() });
    assert.equal(up.headers.get('location'), '/registry/v2/app/blobs/uploads/u1');
  });
});

function openWs(path: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(gw.url.replace('http', 'ws') + path, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

function nextMessage(ws: WebSocket): Promise<string> {
  return new Promise((r) => ws.once('message', (m) => r(m.toString())));
}

describe('gateway WebSockets', () => {
  test('refuses a WebSocket without the token (401) or from a foreign origin (403)', async () => {
    await assert.rejects(openWs('/engine/containers/abc/attach/ws'), /HTTP 401/);
    await assert.rejects(
      openWs(`/engine/containers/abc/attach/ws?token=${gw.token}`, { origin: 'http://evil.example' }),
      /HTTP 403/,
    );
  });

  test('proxies the attach WebSocket as is', async () => {
    const ws = await openWs(`/engine/containers/abc/attach/ws?stream=1&token=${gw.token}`, {
      origin: gw.url,
    });
    const reply = nextMessage(ws);
    ws.send('hello');
    assert.equal(await reply, 'echo:hello');
    ws.close();
  });

  test('bridges an exec WebSocket to a hijacked TTY exec start, raw bytes both ways', async () => {
    const ws = await openWs(`/engine/exec/e1/start-ws?token=${gw.token}`);
    const banner = await nextMessage(ws);
    assert.equal(banner, 'started {"Detach":false,"Tty":true}\r\n');
    const reply = nextMessage(ws);
    ws.send('echo hi\n');
    assert.equal(await reply, 'ECHO HI\n');
    ws.close();
  });

  test('closes the exec WebSocket with 4000+status and the engine message on refusal', async () => {
    const ws = await openWs(`/engine/exec/missing/start-ws?token=${gw.token}`);
    const [code, reason] = await new Promise<[number, string]>((r) =>
      ws.once('close', (c, why) => r([c, why.toString()])),
    );
    assert.equal(code, 4404);
    assert.equal(reason, 'No such exec instance: missing');
  });
});

describe('gateway desktop API', () => {
  test('reports supervisor state and streams it as server-sent events', async () => {
    const res = await fetch(gw.url + '/api/state', { headers: auth() });
    const body = (await res.json()) as {
      services: { name: string; status: string; adopted: boolean }[];
      usage: { app: { rssBytes: number } };
    };
    assert.deepEqual(
      body.services.map((s) => [s.name, s.status, s.adopted]),
      [['svcd', 'up', true]],
    );
    assert.ok(body.usage.app.rssBytes > 0);
    const sse = await fetch(`${gw.url}/api/state/stream?token=${gw.token}`);
    assert.equal(sse.headers.get('content-type'), 'text/event-stream');
    const reader = sse.body!.getReader();
    const first = Buffer.from((await reader.read()).value!).toString();
    assert.match(first, /^event: state\ndata: \{"name":"svcd","status":"up"/);
    await reader.cancel();
    const missing = await fetch(gw.url + '/api/services/nope/log', { headers: auth() });
    assert.equal(missing.status, 404);
  });
});

describe('gateway host port check', () => {
  test('says a port something listens on is taken, a free one is free, and refuses a bad one', async () => {
    const held = createServer();
    await new Promise<void>((r) => held.listen(0, '127.0.0.1', r));
    const port = (held.address() as AddressInfo).port;
    try {
      const ask = async (p: number | string) => fetch(`${gw.url}/api/host-ports/${p}`, { headers: auth() });
      assert.deepEqual(await (await ask(port)).json(), {
        port,
        free: false,
        reason: `something on this machine already listens on port ${port}`,
      });
      await new Promise((r) => held.close(r));
      assert.deepEqual(await (await ask(port)).json(), { port, free: true });
      assert.equal((await ask('http')).status, 400);
      assert.equal((await ask(70000)).status, 400);
    } finally {
      held.close();
    }
  });
});

describe('gateway settings API', () => {
  test('reads and updates the app settings, refusing a body that is not JSON', async () => {
    const get = await fetch(gw.url + '/api/settings', { headers: auth() });
    assert.deepEqual(await get.json(), { stopContainersOnQuit: false });
    const put = await fetch(gw.url + '/api/settings', {
      method: 'PUT',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ stopContainersOnQuit: true }),
    });
    assert.deepEqual(await put.json(), { stopContainersOnQuit: true });
    const bad = await fetch(gw.url + '/api/settings', { method: 'PUT', headers: auth(), body: 'nope' });
    assert.equal(bad.status, 400);
    const unauth = await fetch(gw.url + '/api/settings', { method: 'PUT', body: '{}' });
    assert.equal(unauth.status, 401);
  });
});

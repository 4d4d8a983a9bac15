import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket } from 'ws';
import { acceptWebSocket, type WebSocketStream } from './websocket';

/** Wired like daemon/server/server.ts; /ws?binary=1 echoes upper-cased, /bad is not a handshake. */
function startServer(onStream: (s: WebSocketStream) => void): Promise<Server> {
  const server = createServer();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (head.length > 0) socket.unshift(head);
    const res = new ServerResponse(req);
    res.assignSocket(socket as never);
    res.on('finish', () => socket.end());
    const url = new URL(req.url ?? '/', 'http://svcd');
    acceptWebSocket(req, res, { binary: url.searchParams.get('binary') === '1', keepAliveMs: 50 }).then(
      onStream,
      (err: Error) => {
        res.writeHead(400, { 'Content-Type': 'text/plain' });
        res.end(err.message);
      },
    );
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('attach WebSocket', () => {
  let server: Server;
  let url: string;
  const streams: WebSocketStream[] = [];
  before(async () => {
    server = await startServer((s) => {
      streams.push(s);
      s.on('data', (d: Buffer) => s.write(d.toString().toUpperCase()));
      s.on('end', () => s.end());
    });
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });

  async function exchange(binary: boolean): Promise<{ data: string; isBinary: boolean }> {
    const ws = new WebSocket(`${url}/containers/x/attach/ws?binary=${binary ? 1 : 0}`);
    await once(ws, 'open');
    ws.send(Buffer.from('ls -l\n'));
    const [data, isBinary] = (await once(ws, 'message')) as [Buffer, boolean];
    ws.close();
    await once(ws, 'close');
    return { data: data.toString(), isBinary };
  }

  test('binary frames from API 1.28', async () => {
    assert.deepEqual(await exchange(true), { data: 'LS -L\n', isBinary: true });
  });

  test('text frames before 1.28', async () => {
    assert.deepEqual(await exchange(false), { data: 'LS -L\n', isBinary: false });
  });

  test('ending the stream sends a normal close to the client', async () => {
    const ws = new WebSocket(`${url}/x?binary=1`);
    await once(ws, 'open');
    const stream = streams[streams.length - 1];
    stream.end('bye');
    const [msg] = (await once(ws, 'message')) as [Buffer];
    const [code] = (await once(ws, 'close')) as [number];
    assert.equal(msg.toString(), 'bye');
    assert.equal(code, 1000);
  });

  test('answers pings and pings the client to keep the session alive', async () => {
    const ws = new WebSocket(`${url}/x?binary=1`);
    await once(ws, 'open');
    ws.ping(Buffer.from('hi'));
    const [pong] = (await once(ws, 'pong')) as [Buffer];
    assert.equal(pong.toString(), 'hi');
    await once(ws, 'ping');
    // Still open after several keep-alive rounds, since the client answers.
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(ws.readyState, WebSocket.OPEN);
    ws.close();
    await once(ws, 'close');
  });

  test('a client that stops answering pings is dropped', async () => {
    const ws = new WebSocket(`${url}/x?binary=1`, { autoPong: false });
    await once(ws, 'open');
    const stream = streams[streams.length - 1];
    const [code] = (await once(ws, 'close')) as [number];
    assert.equal(code, 1006);
    await once(stream, 'close');
  });

  test('a client that vanishes ends the readable side', async () => {
    const ws = new WebSocket(`${url}/x?binary=1`);
    await once(ws, 'open');
    const stream = streams[streams.length - 1];
    const ended = once(stream, 'close');
    ws.terminate();
    await ended;
    assert.equal(stream.destroyed, true);
  });

  test('output written while the connection closes is dropped, not an error', async () => {
    const ws = new WebSocket(`${url}/x?binary=1`);
    await once(ws, 'open');
    const stream = streams[streams.length - 1];
    const errors: unknown[] = [];
    stream.on('error', (err) => errors.push(err));
    stream.ws.close(1000);
    const written = await new Promise<unknown>((resolve) => stream.write('late output', resolve));
    await once(ws, 'close');
    assert.equal(written ?? null, null);
    assert.deepEqual(errors, []);
  });

  test('a request that is not a handshake is refused with 400', async () => {
    const { request } = await import('node:http');
    const req = request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x`, {
      headers: { Connection: 'Upgrade', Upgrade: 'websocket' },
    });
    req.end();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    assert.equal(res.statusCode, 400);
    res.resume();
  });
});

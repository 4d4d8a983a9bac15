import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { HijackRefusedError, requestHijack } from './hijack-client';
import { hijack, rawStreamMediaType, readUpgradeBody, type HijackedConnection } from './hijack';

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

/** A server wired like daemon/server/server.ts: upgrades become a ServerResponse on the socket. */
function startServer(handler: Handler, withUpgradeEvent: boolean): Promise<Server> {
  const server = createServer((req, res) => {
    res.setHeader('API-Version', '1.41');
    res.setHeader('Server', 'Svc/test');
    void handler(req, res);
  });
  if (withUpgradeEvent) {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (head.length > 0) socket.unshift(head);
      const res = new ServerResponse(req);
      res.assignSocket(socket as never);
      res.on('finish', () => socket.end());
      res.setHeader('API-Version', '1.41');
      void handler(req, res);
    });
  }
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Echoes stdin upper-cased; on the client's CloseWrite says EOF and closes. */
function echo(conn: HijackedConnection): void {
  conn.conn.on('data', (d: Buffer) => conn.conn.write(d.toString().toUpperCase()));
  conn.conn.on('end', () => {
    conn.conn.write('EOF\n');
    conn.close();
  });
}

interface RawClient {
  socket: Socket;
  head: string;
  /** Everything received after the head until the server closed. */
  rest: Promise<string>;
  /** Waits until the body so far contains `text`. */
  waitFor(text: string): Promise<void>;
}

async function rawRequest(server: Server, request: string): Promise<RawClient> {
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write(request);
  let buf = '';
  let headEnd = -1;
  const waiters: Array<() => void> = [];
  socket.on('data', (d: Buffer) => {
    buf += d.toString('latin1');
    waiters.splice(0).forEach((w) => w());
  });
  const closed = new Promise<void>((r) => socket.on('close', () => r()));
  socket.on('error', () => undefined);
  const waitFor = async (text: string) => {
    while (!buf.slice(headEnd + 4).includes(text)) {
      await Promise.race([
        new Promise<void>((r) => waiters.push(r)),
        closed.then(() => assert.fail(`closed before "${text}": ${buf}`)),
      ]);
    }
  };
  while ((headEnd = buf.indexOf('\r\n\r\n')) < 0) {
    await Promise.race([
      new Promise<void>((r) => waiters.push(r)),
      closed.then(() => assert.fail(`closed: ${buf}`)),
    ]);
  }
  const head = buf.slice(0, headEnd);
  return { socket, head, rest: closed.then(() => buf.slice(headEnd + 4)), waitFor };
}

const upgradeRequest = (path: string, extra = '') =>
  `POST ${path} HTTP/1.1\r\nHost: svcd\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n${extra}\r\n`;
const plainRequest = (path: string) => `POST ${path} HTTP/1.1\r\nHost: svcd\r\nContent-Length: 0\r\n\r\n`;

for (const withUpgradeEvent of [false, true]) {
  describe(`hijack (${withUpgradeEvent ? "server with an 'upgrade' listener" : 'request handler only'})`, () => {
    let server: Server;
    const sessions: HijackedConnection[] = [];
    before(async () => {
      server = await startServer(async (req, res) => {
        const conn = await hijack(req, res, { headers: { 'X-Extra': 'yes' } });
        sessions.push(conn);
        if (req.url === '/bye') {
          conn.conn.write('bye\n');
          conn.close();
          conn.close();
          return;
        }
        echo(conn);
      }, withUpgradeEvent);
    });
    after(() => new Promise<void>((r) => server.close(() => r())));

    test('Upgrade: tcp is answered 101 UPGRADED with the raw-stream headers', async () => {
      const c = await rawRequest(server, upgradeRequest('/containers/x/attach'));
      const lines = c.head.split('\r\n');
      assert.equal(lines[0], 'HTTP/1.1 101 UPGRADED');
      assert.ok(lines.includes(`Content-Type: ${rawStreamMediaType}`), c.head);
      assert.ok(lines.includes('Connection: Upgrade'));
      assert.ok(lines.includes('Upgrade: tcp'));
      assert.ok(lines.includes('API-Version: 1.41'), c.head);
      assert.ok(lines.includes('X-Extra: yes'));
      assert.ok(!/transfer-encoding|content-length/i.test(c.head));
      c.socket.write('hello ');
      await c.waitFor('HELLO ');
      c.socket.write('world');
      await c.waitFor('WORLD');
      // CloseWrite: stdin EOF reaches the handler, which can still answer before closing.
      c.socket.end();
      assert.equal(await c.rest, 'HELLO WORLDEOF\n');
    });

    test('without Upgrade the answer is 200 OK and the stream is still raw both ways', async () => {
      const c = await rawRequest(server, plainRequest('/containers/x/attach'));
      const lines = c.head.split('\r\n');
      assert.equal(lines[0], 'HTTP/1.1 200 OK');
      assert.ok(lines.includes(`Content-Type: ${rawStreamMediaType}`));
      assert.ok(!lines.includes('Upgrade: tcp'));
      // Bytes that look like HTTP are stdin, not a next request.
      c.socket.write('GET / HTTP/1.1\r\n\r\n');
      await c.waitFor('GET / HTTP/1.1\r\n\r\n'.toUpperCase());
      c.socket.end();
      assert.equal(await c.rest, 'GET / HTTP/1.1\r\n\r\nEOF\n');
    });

    // Only an 'upgrade' listener gets the bytes that arrived with the request (as `head`); a plain
    // request handler's parser has already swallowed them. server.ts listens for upgrades.
    if (withUpgradeEvent) {
      test('stdin sent together with the request is not lost', async () => {
        const c = await rawRequest(server, `${upgradeRequest('/exec/x/start')}early`);
        await c.waitFor('EARLY');
        c.socket.end();
        assert.equal(await c.rest, 'EARLYEOF\n');
      });
    }

    test('the server closing first delivers its output and closes, stdin still open', async () => {
      const c = await rawRequest(server, upgradeRequest('/bye'));
      assert.equal(await c.rest, 'bye\n');
    });

    test('a client reset aborts the session signal without crashing', async () => {
      const c = await rawRequest(server, upgradeRequest('/containers/x/attach'));
      const session = sessions[sessions.length - 1];
      assert.equal(session.signal.aborted, false);
      c.socket.resetAndDestroy();
      await session.closed;
      assert.equal(session.signal.aborted, true);
      session.close();
    });
  });
}

describe('hijack with a request body (exec start over an upgrade)', () => {
  let server: Server;
  before(async () => {
    server = await startServer(async (req, res) => {
      const body = JSON.parse((await readUpgradeBody(req, res.socket as Duplex)).toString()) as {
        Tty: boolean;
      };
      const conn = await hijack(req, res);
      conn.conn.write(`tty=${body.Tty}\n`);
      echo(conn);
    }, true);
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  test('the JSON body is read off the socket and stdin follows it', async () => {
    const body = '{"Detach":false,"Tty":true}';
    const c = await rawRequest(
      server,
      `${upgradeRequest('/exec/x/start', `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`)}${body}abc`,
    );
    assert.match(c.head, /^HTTP\/1.1 101 UPGRADED/);
    await c.waitFor('ABC');
    c.socket.end();
    assert.equal(await c.rest, 'tty=true\nABCEOF\n');
  });
});

describe('requestHijack (the client side)', () => {
  let server: Server;
  before(async () => {
    server = await startServer(async (req, res) => {
      if (req.url === '/missing') {
        res.writeHead(404, { 'Content-Type': 'application/json' });
        res.end('{"message":"No such container: missing"}');
        return;
      }
      const body = await readUpgradeBody(req, res.socket as Duplex);
      const conn = await hijack(req, res);
      conn.conn.write(`body=${body.toString()}\n`);
      echo(conn);
    }, true);
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  test('gets the raw connection after 101; end() is stdin EOF and output still arrives', async () => {
    const port = (server.address() as AddressInfo).port;
    const { statusCode, headers, conn } = await requestHijack(
      { host: '127.0.0.1', port },
      {
        method: 'POST',
        path: '/exec/x/start',
        body: '{"Tty":false}',
        headers: { 'Content-Type': 'application/json' },
      },
    );
    assert.equal(statusCode, 101);
    assert.equal(headers['content-type'], rawStreamMediaType);
    const chunks: Buffer[] = [];
    conn.on('data', (c: Buffer) => chunks.push(c));
    conn.write('abc');
    conn.end();
    await once(conn, 'close');
    assert.equal(Buffer.concat(chunks).toString(), 'body={"Tty":false}\nABCEOF\n');
  });

  test('an error answer is a HijackRefusedError with status and body', async () => {
    const port = (server.address() as AddressInfo).port;
    await assert.rejects(
      requestHijack({ host: '127.0.0.1', port }, { method: 'POST', path: '/missing' }),
      (err) => {
        assert.ok(err instanceof HijackRefusedError);
        assert.equal(err.statusCode, 404);
        assert.match(err.body, /No such container/);
        return true;
      },
    );
  });
});

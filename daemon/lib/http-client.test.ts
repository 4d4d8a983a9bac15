import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { httpRequest } from './http-client';

interface Seen {
  method: string;
  url: string;
  authorization?: string;
  body: string;
}

const seen: Seen[] = [];
let origin: string;
let storage: string;
const servers: http.Server[] = [];

function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void) {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body });
      handler(req, res, body);
    });
  });
  servers.push(server);
  return new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

before(async () => {
  // A second origin standing in for the storage a registry redirects blob reads to.
  storage = await serve((req, res) => res.end(`stored ${req.url}`));
  origin = await serve((req, res, body) => {
    if (req.url === '/blob') res.writeHead(307, { Location: `${storage}/signed?x=1` }).end();
    else if (req.url === '/moved') res.writeHead(302, { Location: '/echo' }).end();
    else if (req.url === '/see-other') res.writeHead(303, { Location: '/echo' }).end();
    else if (req.url === '/slow') res.writeHead(200).write('partial');
    else res.writeHead(200, { 'X-Method': req.method, 'X-Twice': ['a', 'b'] }).end(body);
  });
});

after(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a redirect to another origin is followed without our credentials', async () => {
  seen.length = 0;
  const res = await httpRequest(`${origin}/blob`, { headers: { Authorization: 'Bearer secret' } });
  assert.equal(res.status, 200);
  assert.equal(await res.text(), 'stored /signed?x=1');
  assert.equal(res.url, `${storage}/signed?x=1`);
  assert.deepEqual(
    seen.map((s) => s.authorization),
    ['Bearer secret', undefined],
  );
});

test('a same-origin redirect keeps credentials; 303 turns a POST into a GET', async () => {
  seen.length = 0;
  const kept = await httpRequest(`${origin}/moved`, { headers: { Authorization: 'Basic x' } });
  assert.equal(kept.headers.get('x-method'), 'GET');
  assert.equal(kept.headers.get('X-Twice'), 'a, b');
  kept.discard();
  const posted = await httpRequest(`${origin}/see-other`, { method: 'POST', body: 'form' });
  assert.equal(posted.headers.get('x-method'), 'GET');
  assert.equal(await posted.text(), '');
  assert.deepEqual(
    seen.map((s) => [s.method, s.authorization]),
    [
      ['GET', 'Basic x'],
      ['GET', 'Basic x'],
      ['POST', undefined],
      ['GET', undefined],
    ],
  );
});

test('a stream body is sent as it is; a redirect answer to one is refused, not replayed', async () => {
  const res = await httpRequest(`${origin}/echo`, {
    method: 'PUT',
    body: Readable.from([Buffer.from('a'), 'b']),
  });
  assert.equal(await res.text(), 'ab');
  await assert.rejects(
    httpRequest(`${origin}/see-other`, { method: 'PUT', body: Readable.from(['x']) }),
    /not followed/,
  );
  const manual = await httpRequest(`${origin}/moved`, { redirect: 'manual' });
  assert.equal(manual.status, 302);
  assert.equal(manual.headers.get('location'), '/echo');
});

test('aborting the signal fails the body being read', async () => {
  const controller = new AbortController();
  const res = await httpRequest(`${origin}/slow`, { signal: controller.signal });
  assert.equal(res.ok, true);
  const reading = res.text();
  controller.abort();
  await assert.rejects(reading);
});

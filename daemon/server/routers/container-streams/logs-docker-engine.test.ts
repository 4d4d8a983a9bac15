// The logs endpoint's answers, head and body, beside Docker Engine 20.10's: a log, and the errors
// it gives (JSON from API 1.24, plain text before), read off the socket as a client gets them.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { useEnginePair } from '../../testing/engine-pair';
import { expectStatus } from '../../../testing/containers-fixture';
import { dockerdMissing } from '../../../testing/dockerd-peer';
import type { EngineApi } from '../../../testing/engine-client';

interface RawAnswer {
  statusLine: string;
  headers: Map<string, string>;
  body: string;
}

/** A chunked body's data: how it is cut into chunks is the server's business. */
function dechunk(body: string): string {
  let data = '';
  for (let at = 0; ;) {
    const eol = body.indexOf('\r\n', at);
    const size = parseInt(body.slice(at, eol), 16);
    if (!size) return data;
    data += body.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

/** One GET on a fresh connection, closed after the answer: the status line, headers and body. */
function rawGet(socket: string, path: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const conn = connect(socket);
    const chunks: Buffer[] = [];
    conn.on('data', (d: Buffer) => chunks.push(d));
    conn.on('error', reject);
    conn.on('end', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = new Map(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      const body = rest.join('\r\n\r\n');
      resolve({
        statusLine,
        headers,
        body: headers.get('transfer-encoding') === 'chunked' ? dechunk(body) : body,
      });
    });
    conn.write(`GET ${path} HTTP/1.1\r\nHost: engine\r\nConnection: close\r\n\r\n`);
  });
}

// What differs by design: the product's name, the answer's date, and svcd's own twin header.
const ours = new Set(['server', 'date', 'svc-experimental']);

function assertSameAnswer(svcd: RawAnswer, dockerd: RawAnswer, what: string): void {
  assert.equal(svcd.statusLine, dockerd.statusLine, what);
  const names = (a: RawAnswer) => [...a.headers.keys()].filter((n) => !ours.has(n)).sort();
  assert.deepEqual(names(svcd), names(dockerd), what);
  for (const name of names(dockerd))
    assert.equal(svcd.headers.get(name), dockerd.headers.get(name), `${what}: ${name}`);
  assert.equal(svcd.body, dockerd.body, what);
}

async function exitedContainer(engine: EngineApi): Promise<string> {
  const res = await engine.request('POST', '/containers/create', {
    body: {
      Image: 'busybox',
      // A pause between the lines: the two pipes are read apart, so the order is only defined
      // when one line is logged before the other is written.
      Cmd: ['sh', '-c', 'echo out; sleep 0.3; echo err >&2'],
      HostConfig: { NetworkMode: 'none' },
    },
  });
  const id = expectStatus(res, 201).json<{ Id: string }>().Id;
  expectStatus(await engine.request('POST', `/containers/${id}/start`), 204);
  expectStatus(await engine.request('POST', `/containers/${id}/wait`), 200);
  return id;
}

describe('the logs endpoint as Docker Engine 20.10 answers it', { skip: dockerdMissing() }, () => {
  const engines = useEnginePair();

  test('a log: 200, no Content-Type, chunked frames', async () => {
    const { svcd, dockerd } = engines();
    const [a, b] = await Promise.all([exitedContainer(svcd), exitedContainer(dockerd)]);
    const query = 'stdout=1&stderr=1';
    const answers = await Promise.all([
      rawGet(svcd.socket, `/v1.41/containers/${a}/logs?${query}`),
      rawGet(dockerd.socket, `/v1.41/containers/${b}/logs?${query}`),
    ]);
    assert.equal(answers[0].headers.get('content-type'), undefined);
    assertSameAnswer(answers[0], answers[1], 'logs');
  });

  test('errors: the same status line, headers and body', async () => {
    const { svcd, dockerd } = engines();
    const [a, b] = await Promise.all([exitedContainer(svcd), exitedContainer(dockerd)]);
    const cases = [
      { what: 'no such container (JSON)', path: () => '/v1.41/containers/no-such/logs?stdout=1' },
      { what: 'no such container (text)', path: () => '/v1.23/containers/no-such/logs?stdout=1' },
      { what: 'no stream chosen', path: (id: string) => `/v1.41/containers/${id}/logs` },
    ];
    for (const { what, path } of cases) {
      const [ours, theirs] = await Promise.all([
        rawGet(svcd.socket, path(a)),
        rawGet(dockerd.socket, path(b)),
      ]);
      assertSameAnswer(ours, theirs, what);
    }
  });
});

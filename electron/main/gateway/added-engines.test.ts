// Engines added in Settings, through a real gateway to a real svcd: one svcd serving both its
// unix socket and tcp://127.0.0.2 with --tlsverify, added as two engines. What is checked is what
// the renderer sees: the answers under /engines/{id}, the 4xx for what cannot be added, and that
// no TLS file (path or content) ever comes back.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import type { EngineStatus, EngineSummary } from '../../../daemon/api/desktop-types';
import { importBusybox } from '../../../daemon/testing/busybox-image';
import { destroySvcd, type SvcdInstance } from '../../../daemon/testing/svcd-harness';
import { makePki, startTlsSvcd, type Pki } from '../../../daemon/testing/test-pki';
import { SettingsFile } from '../desktop-settings';
import { AddedEngines } from '../engines/added-engines';
import { noServices } from '../testing/no-services';
import { startGateway, type Gateway } from './gateway';

let dir: string;
let pki: Pki;
let port: number;
let svcd: SvcdInstance;
let gw: Gateway;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gateway-engines-'));
  pki = await makePki(dir);
  ({ svcd, port } = await startTlsSvcd(pki));
  await importBusybox(svcd);
  const settings = new SettingsFile(join(dir, 'app'));
  gw = await startGateway({
    engineSocket: svcd.socket,
    registryUrl: 'http://127.0.0.1:1',
    services: noServices,
    settings,
    engines: new AddedEngines(settings),
  });
});

after(async () => {
  await gw?.close();
  await destroySvcd(svcd);
  await rm(dir, { recursive: true, force: true });
});

const auth = { authorization: `Bearer ` };
const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(gw.url + path, {
    method,
    headers: { authorization: `Bearer ${gw.token}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
const json = async <T>(res: Response) => (await res.json()) as T;

async function addEngine(body: object): Promise<EngineSummary> {
  const res = await call('POST', '/api/engines', body);
  assert.equal(res.status, 201, await res.clone().text());
  return json<EngineSummary>(res);
}

describe('adding engines', () => {
  test('refuses what it cannot use with a 400 naming the problem, and a duplicate name with a 409', async () => {
    const cases: [unknown, RegExp][] = [
      ['not json', /JSON object/],
      [{ endpoint: 'unix:///run/docker.sock' }, /name is required/],
      [{ name: 'a', endpoint: '' }, /endpoint is required/],
      [{ name: 'a', endpoint: 'http://127.0.0.1:2375' }, /scheme must be unix:\/\/, tcp:\/\/ or ssh:\/\//],
      [{ name: 'a', endpoint: 'unix://run/docker.sock' }, /socket path must be absolute/],
      [{ name: 'a', endpoint: 'tcp://127.0.0.1' }, /expected tcp:\/\/host:port/],
      [{ name: 'a', endpoint: 'tcp://127.0.0.1:70000' }, /port 70000 is out of range/],
      [{ name: 'a', endpoint: 'ssh://-oProxyCommand=x' }, /expected ssh:\/\/\[user@\]host\[:port\]/],
      [{ name: 'a', endpoint: 'unix:///x.sock', tls: { ca: pki.caCert } }, /tls applies only to tcp/],
      [
        { name: 'a', endpoint: 'tcp://127.0.0.2:1', tls: { cert: pki.clientCert } },
        /tls.cert and tls.key go together/,
      ],
      [
        { name: 'a', endpoint: 'tcp://127.0.0.2:1', tls: { ca: 'ca.pem' } },
        /tls.ca must be an absolute file path/,
      ],
      [
        { name: 'a', endpoint: 'tcp://127.0.0.2:1', tls: { ca: join(dir, 'none.pem') } },
        /tls.ca: cannot read/,
      ],
    ];
    for (const [body, message] of cases) {
      const res = await call('POST', '/api/engines', typeof body === 'string' ? body : body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match((await json<{ message: string }>(res)).message, message);
    }
    const first = await addEngine({ name: 'twice', endpoint: 'unix:///run/none.sock' });
    const again = await call('POST', '/api/engines', { name: 'twice', endpoint: 'unix:///run/other.sock' });
    assert.equal(again.status, 409);
    assert.match((await json<{ message: string }>(again)).message, /an engine named twice already exists/);
    assert.equal((await call('DELETE', `/api/engines/${first.id}`)).status, 204);
  });
});

describe('proxying added engines', () => {
  test('a unix-socket engine answers under /engines/{id} with the same token, Origin and Host rules', async () => {
    const e = await addEngine({ name: 'local socket', endpoint: `unix://${svcd.socket}` });
    assert.deepEqual(e, {
      id: e.id,
      name: 'local socket',
      kind: 'unix',
      endpoint: `unix://${svcd.socket}`,
      tls: false,
    });
    const version = await call('GET', `/engines/${e.id}/version`);
    assert.equal(version.status, 200);
    assert.match((await json<{ ApiVersion: string }>(version)).ApiVersion, /^1\.\d+$/);
    assert.equal((await fetch(`${gw.url}/engines/${e.id}/_ping`, { headers: auth })).status, 401);
    const foreign = await call('GET', `/engines/${e.id}/_ping`, undefined, { origin: 'http://evil.example' });
    assert.equal(foreign.status, 403);
    const unknown = await call('GET', '/engines/nope/_ping');
    assert.equal(unknown.status, 404);
    assert.match((await json<{ message: string }>(unknown)).message, /no such engine: nope/);
    const status = await json<EngineStatus>(await call('GET', `/api/engines/${e.id}/status`));
    assert.equal(status.up, true);
    assert.equal((await call('DELETE', `/api/engines/${e.id}`)).status, 204);
    assert.equal((await call('GET', `/engines/${e.id}/_ping`)).status, 404);
  });

  test('a tcp:// engine with TLS client certificates is reached; its files never reach the renderer', async () => {
    const e = await addEngine({
      name: 'tls',
      endpoint: `tcp://127.0.0.2:${port}`,
      tls: { ca: pki.caCert, cert: pki.clientCert, key: pki.clientKey },
    });
    assert.equal(e.tls, true);
    const status = await json<EngineStatus>(await call('GET', `/api/engines/${e.id}/status`));
    assert.equal(status.up, true, status.reason);
    assert.equal((await call('GET', `/engines/${e.id}/containers/json`)).status, 200);
    // Without a client certificate svcd refuses the connection: the engine is down, and says why.
    const noCert = await addEngine({
      name: 'tls without cert',
      endpoint: `tcp://127.0.0.2:${port}`,
      tls: { ca: pki.caCert },
    });
    const down = await json<EngineStatus>(await call('GET', `/api/engines/${noCert.id}/status`));
    assert.equal(down.up, false);
    assert.ok(down.reason, 'a reason is given');
    const proxied = await call('GET', `/engines/${noCert.id}/_ping`);
    assert.equal(proxied.status, 502);
    assert.match(
      (await json<{ message: string }>(proxied)).message,
      new RegExp(`engine ${noCert.id} unavailable`),
    );

    const seen = [
      await (await call('GET', '/api/engines')).text(),
      await (await call('GET', '/api/settings')).text(),
      JSON.stringify(e),
    ].join('\n');
    for (const secret of [dir, readFileSync(pki.clientKey, 'utf8').split('\n')[1]])
      assert.ok(!seen.includes(secret), `the renderer was shown ${secret}`);
    // Kept in the settings file for the next launch, paths and all.
    const stored = new SettingsFile(join(dir, 'app')).readEngines().find((s) => s.id === e.id);
    assert.equal(stored?.tls?.key, pki.clientKey);
    await call('DELETE', `/api/engines/${noCert.id}`);
  });

  test('run, logs and an exec terminal on the TLS engine, through the gateway', async () => {
    const [e] = (await json<EngineSummary[]>(await call('GET', '/api/engines'))).filter(
      (x) => x.name === 'tls',
    );
    const base = `/engines/${e.id}`;
    const created = await call('POST', `${base}/containers/create`, {
      Image: 'busybox:latest',
      Cmd: ['sh', '-c', 'echo hello from tls; sleep 600'],
    });
    assert.equal(created.status, 201);
    const { Id } = await json<{ Id: string }>(created);
    try {
      assert.equal((await call('POST', `${base}/containers/${Id}/start`)).status, 204);
      const logs = await call('GET', `${base}/containers/${Id}/logs?stdout=1&follow=1`);
      const reader = logs.body!.getReader();
      let text = '';
      while (!text.includes('hello from tls')) text += Buffer.from((await reader.read()).value!).toString();
      await reader.cancel();

      const exec = await json<{ Id: string }>(
        await call('POST', `${base}/containers/${Id}/exec`, {
          AttachStdin: true,
          AttachStdout: true,
          Tty: true,
          Cmd: ['sh'],
        }),
      );
      const ws = new WebSocket(
        `${gw.url.replace('http', 'ws')}${base}/exec/${exec.Id}/start-ws?token=${gw.token}`,
        {
          origin: gw.url,
        },
      );
      let out = '';
      const sawAnswer = new Promise<void>((resolve, reject) => {
        ws.on('message', (m: Buffer) => {
          out += m.toString();
          if (out.includes('answer=42')) resolve();
        });
        ws.on('close', (code, why) => reject(new Error(`closed ${code} ${why.toString()}: ${out}`)));
      });
      await new Promise((r) => ws.once('open', r));
      ws.send('echo answer=$((40+2))\n');
      await sawAnswer;
      ws.close();
    } finally {
      await call('DELETE', `${base}/containers/${Id}?force=1`);
    }
  });

  test('an ssh:// engine goes through the system ssh client; one that cannot be reached is down with its reason', async () => {
    const e = await addEngine({ name: 'ssh', endpoint: 'ssh://nobody@127.0.0.1:1' });
    assert.equal(e.kind, 'ssh');
    const status = await json<EngineStatus>(await call('GET', `/api/engines/${e.id}/status`));
    assert.equal(status.up, false);
    assert.match(status.reason ?? '', /ssh exited 255: .*(refused|port 1)/);
    await call('DELETE', `/api/engines/${e.id}`);
  });
});

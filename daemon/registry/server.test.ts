import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { get as httpsGet } from 'node:https';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { repoRoot } from '../lib/product';
import { sha256 } from '../lib/digest';
import { http, type HttpResponse } from '../testing/http-client';
import { rawRequest } from '../testing/raw-http';
import { paths } from './storage/paths';
import { pushBlob, pushSmallImage, putManifest, startUpload } from './testing/registry-client';
import {
  registryCommand,
  startRegistry,
  testStorage,
  type RegistryProcess,
} from './testing/registry-process';

function codes(res: HttpResponse): string[] {
  return res.json<{ errors: { code: string }[] }>().errors.map((e) => e.code);
}

let scratch: string;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'svc-registry-server-'));
});
after(() => rm(scratch, { recursive: true, force: true }));

describe('server basics', () => {
  let reg: RegistryProcess;
  before(async () => {
    reg = await startRegistry();
  });
  after(() => reg.stop());

  test('GET /v2/ answers 200 with both API version headers', async () => {
    const res = await http(`${reg.url}/v2/`);
    assert.equal(res.status, 200);
    assert.equal(res.headers['svc-distribution-api-version'], 'registry/2.0');
    assert.equal(res.headers['docker-distribution-api-version'], 'registry/2.0');
  });

  test('an unknown path is 404; a known path with another method is 405 UNSUPPORTED', async () => {
    assert.equal((await http(`${reg.url}/v2/x/unknown/thing/`)).status, 404);
    const res = await http(`${reg.url}/v2/x/tags/list`, { method: 'DELETE' });
    assert.equal(res.status, 405);
    assert.deepEqual(codes(res), ['UNSUPPORTED']);
  });

  test('a percent-encoded digest reads as the digest, as Distribution decodes its path', async () => {
    const body = await pushSmallImage(reg.url, 'enc/a', 'enc');
    await putManifest(reg.url, 'enc/a', 'v1', body);
    const encoded = encodeURIComponent(sha256(body));
    assert.match(encoded, /%3A/);
    assert.equal((await http(`${reg.url}/v2/enc/a/manifests/${encoded}`)).status, 200);
    assert.equal((await http(`${reg.url}/v2/enc/a/manifests/${encoded}`, { method: 'DELETE' })).status, 202);
    assert.equal((await http(`${reg.url}/v2/enc/a/manifests/${sha256(body)}`)).status, 404);
    const bad = await http(`${reg.url}/v2/enc/a/manifests/sha256%3Azz`, { method: 'DELETE' });
    assert.deepEqual(codes(bad), ['DIGEST_INVALID']);
  });

  test('the token endpoint is unsupported without token auth', async () => {
    const res = await http(`${reg.url}/token?scope=repository:x:pull`);
    assert.equal(res.status, 405);
    assert.deepEqual(codes(res), ['UNSUPPORTED']);
  });

  // A directory where a file belongs fails a read there; an object store has no such state.
  const fsOnly = testStorage() === 's3' && 'a filesystem failure';
  test('a storage failure is 500 UNKNOWN', { skip: fsOnly }, async () => {
    const digest = sha256('broken');
    await mkdir(join(reg.dataDir, paths.blobData(digest)), { recursive: true });
    const link = join(reg.dataDir, paths.revisionLink('broken', digest));
    await mkdir(dirname(link), { recursive: true });
    await writeFile(link, digest);
    const res = await http(`${reg.url}/v2/broken/manifests/${digest}`);
    assert.equal(res.status, 500);
    assert.deepEqual(codes(res), ['UNKNOWN']);
  });
});

describe('read-only mode', () => {
  test('reads work, every write is refused with UNSUPPORTED', async () => {
    const dataDir = join(scratch, 'ro');
    const writer = await startRegistry({ dataDir });
    const body = await pushSmallImage(writer.url, 'ro/a', 'ro');
    await putManifest(writer.url, 'ro/a', 'latest', body);
    await writer.stop();
    const reg = await startRegistry({ dataDir, config: { readOnly: true } });
    try {
      assert.equal((await http(`${reg.url}/v2/ro/a/manifests/latest`)).status, 200);
      const attempts = [
        http(`${reg.url}/v2/ro/a/blobs/uploads/`, { method: 'POST' }),
        putManifest(reg.url, 'ro/a', 'other', body),
        http(`${reg.url}/v2/ro/a/manifests/${sha256(body)}`, { method: 'DELETE' }),
      ];
      for (const res of await Promise.all(attempts)) {
        assert.equal(res.status, 405);
        assert.deepEqual(codes(res), ['UNSUPPORTED']);
      }
    } finally {
      await reg.stop();
    }
  });
});

describe('rate limit', () => {
  test('requests beyond the burst get 429 TOOMANYREQUESTS with Retry-After', async () => {
    const reg = await startRegistry({ config: { rateLimit: { requestsPerSecond: 1, burst: 3 } } });
    try {
      const statuses: number[] = [];
      let limited: HttpResponse | undefined;
      for (let i = 0; i < 5; i++) {
        const res = await http(`${reg.url}/v2/`);
        statuses.push(res.status);
        if (res.status === 429) limited = res;
      }
      assert.deepEqual(statuses.slice(0, 3), [200, 200, 200]);
      assert.ok(limited, `statuses ${statuses}`);
      assert.deepEqual(codes(limited), ['TOOMANYREQUESTS']);
      assert.ok(Number(limited.headers['retry-after']) >= 1);
    } finally {
      await reg.stop();
    }
  });
});

describe('idle timeout', () => {
  test('a stalled upload body is cut after idleTimeoutSeconds; pushes go on', async () => {
    const reg = await startRegistry({ config: { idleTimeoutSeconds: 1 } });
    try {
      const location = new URL(await startUpload(reg.url, 'idle/app'));
      const stalled = await rawRequest(
        { host: '127.0.0.1', port: reg.port },
        {
          head: `PATCH ${location.pathname} HTTP/1.1\r\nHost: x\r\nContent-Length: 5000`,
          body: 'x'.repeat(100),
          waitMs: 20_000,
        },
      );
      assert.equal(stalled.closed, true, JSON.stringify(stalled));
      assert.equal(stalled.timedOut, false, 'the registry closed it, not the test');
      const blob = Buffer.from('after the stall');
      assert.equal(await pushBlob(reg.url, 'idle/app', blob), sha256(blob));
    } finally {
      await reg.stop();
    }
  });
});

describe('events', () => {
  let sink: Server;
  const received: {
    events: { action: string; target: { repository: string; digest?: string; tag?: string } }[];
  }[] = [];
  before(async () => {
    sink = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        assert.equal(req.headers['content-type'], 'application/vnd.docker.distribution.events.v1+json');
        received.push(JSON.parse(Buffer.concat(chunks).toString()));
        res.end();
      });
    });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  });
  after(() => new Promise<void>((r) => sink.close(() => r())));

  test('push, pull and delete go to the log file and to the endpoint', async () => {
    const log = join(scratch, 'events.jsonl');
    const port = (sink.address() as { port: number }).port;
    const reg = await startRegistry({
      config: { events: { log, endpoint: `http://127.0.0.1:${port}/events` } },
    });
    try {
      const body = await pushSmallImage(reg.url, 'ev/a', 'ev');
      await putManifest(reg.url, 'ev/a', 'v1', body);
      await http(`${reg.url}/v2/ev/a/manifests/v1`);
      await http(`${reg.url}/v2/ev/a/manifests/${sha256(body)}`, { method: 'DELETE' });
      const expected = [
        ['push', undefined],
        ['push', undefined],
        ['push', 'v1'],
        ['pull', 'v1'],
        ['delete', undefined],
      ];
      const deadline = Date.now() + 5000;
      let fromEndpoint: [string, string | undefined][] = [];
      while (Date.now() < deadline) {
        fromEndpoint = received.flatMap((r) =>
          r.events.map((e) => [e.action, e.target.tag] as [string, string | undefined]),
        );
        if (fromEndpoint.length >= expected.length) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.deepEqual(fromEndpoint, expected);
      const lines = (await readFile(log, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.deepEqual(
        lines.map((e) => e.action),
        expected.map((e) => e[0]),
      );
      assert.equal(lines[2].target.repository, 'ev/a');
      assert.equal(lines[2].target.digest, sha256(body));
    } finally {
      await reg.stop();
    }
  });
});

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

describe('TLS', { skip: !hasOpenssl && 'openssl is not installed' }, () => {
  test('with tls in the config the API is served over HTTPS', async () => {
    const cert = join(scratch, 'cert.pem');
    const key = join(scratch, 'key.pem');
    const made = spawnSync('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ]);
    assert.equal(made.status, 0, made.stderr?.toString());
    const reg = await startRegistry({ config: { tls: { certificate: cert, key } } });
    try {
      assert.ok(reg.url.startsWith('https://'));
      const ca = await readFile(cert);
      const status = await new Promise<{ code?: number; version?: string | string[] }>((resolve, reject) => {
        httpsGet(`${reg.url}/v2/`, { ca }, (res) => {
          res.resume();
          resolve({ code: res.statusCode, version: res.headers['svc-distribution-api-version'] });
        }).on('error', reject);
      });
      assert.deepEqual(status, { code: 200, version: 'registry/2.0' });
    } finally {
      await reg.stop();
    }
  });
});

describe('command line', () => {
  const run = (args: string[]) =>
    spawnSync(process.execPath, registryCommand(args), {
      cwd: repoRoot(),
      encoding: 'utf8',
      timeout: 30_000,
    });

  test('a taken port: non-zero exit and a clear message', async () => {
    const reg = await startRegistry();
    try {
      const r = run(['serve', '--data', join(scratch, 'p'), '--addr', `127.0.0.1:${reg.port}`]);
      assert.notEqual(r.status, 0);
      assert.match(r.stderr, /address already in use/);
      assert.equal(r.stdout, '');
    } finally {
      await reg.stop();
    }
  });

  test('a data dir that is a file: non-zero exit and a clear message', async () => {
    const file = join(scratch, 'a-file');
    await writeFile(file, 'x');
    const r = run(['serve', '--data', file, '--addr', '127.0.0.1:0']);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /data directory .* is not usable/);
  });

  test('usage errors and a bad config exit non-zero', async () => {
    assert.equal(run(['serve', '--addr', '127.0.0.1:0']).status, 2);
    assert.equal(run(['frobnicate']).status, 2);
    const bad = join(scratch, 'bad.json');
    await writeFile(bad, '{"pageCap": -1}');
    const r = run(['serve', '--data', join(scratch, 'c'), '--addr', '127.0.0.1:0', '--config', bad]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /pageCap/);
  });

  test('serving without auth on a non-loopback address is refused', () => {
    const r = run(['serve', '--data', join(scratch, 'd'), '--addr', '0.0.0.0:0']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /without auth/);
  });

  test('blob pushes survive a restart on the same data dir', async () => {
    const dataDir = join(scratch, 'restart');
    let reg = await startRegistry({ dataDir });
    const digest = await pushBlob(reg.url, 'r/a', Buffer.from('kept'));
    await reg.stop();
    reg = await startRegistry({ dataDir });
    try {
      assert.equal((await http(`${reg.url}/v2/r/a/blobs/${digest}`)).body.toString(), 'kept');
    } finally {
      await reg.stop();
    }
  });
});

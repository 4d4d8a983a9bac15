// Hostile input against a real svc-registry (issue 17): every route of api/routes.ts gets hostile
// repository names (path escapes aimed at a canary directory), references, digests, upload
// UUIDs, Content-Range and Authorization headers, unknown query parameters and malformed,
// deeply nested or wrongly typed manifests; the socket gets oversized headers, truncated and
// stalled bodies. Asserted: the same process answers /v2/ after, no 5xx (each listed with its
// request), nothing written outside the data directory, RSS bounded (printed before and after).
// The seed is printed; SVC_FUZZ_SEED=N replays a run. Blobs are stored as sent and never
// decompressed, so decompression bombs have nothing to hit here (svcd's suite sends them).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import bcrypt from 'bcryptjs';
import { sha256 } from '../lib/digest';
import { routes } from './api/routes';
import { startRegistry, type RegistryProcess } from './testing/registry-process';
import { pushBlob, pushSmallImage, putManifest, startUpload } from './testing/registry-client';
import { FuzzLedger, rssMiB, sendCase, type FuzzCase, type FuzzTarget } from '../testing/fuzz-ledger';
import {
  Prng,
  encodeAny,
  hostileJsonBody,
  hostileQuery,
  hostileSegment,
  hostileString,
} from '../testing/fuzz-input';
import { rawRequest } from '../testing/raw-http';
import { http } from '../testing/http-client';

const seed = Number(process.env.SVC_FUZZ_SEED ?? 1717);
const perOperation = 120;
const waitMs = 8000;

/** The query parameters each operation reads. */
const knownQuery: Record<string, string[]> = {
  getCatalog: ['n', 'last'],
  getTags: ['n', 'last'],
  startBlobUpload: ['digest', 'mount', 'from'],
  putBlobUploadComplete: ['digest'],
  getToken: ['service', 'scope', 'account', 'offline_token', 'client_id'],
};

/** Path patterns with their named groups filled in: `(?<name>.+)` and the others. */
function pathOf(pattern: RegExp, fill: (group: string) => string): string {
  return pattern.source
    .replace(/^\^/, '')
    .replace(/\$$/, '')
    .replace(/\\\//g, '/')
    .replace(/\/\?$/, '/')
    .replace(/\(\?<(\w+)>[^)]*\)/g, (_, group: string) => fill(group));
}

describe('fuzz: svc-registry under hostile input', { timeout: 10 * 60_000 }, () => {
  let open: RegistryProcess;
  let guarded: RegistryProcess;
  let canary: string;
  let scratch: string;
  let manifest: Buffer;
  const marker = `regfuzz${process.pid}`;
  const ledgers: FuzzLedger[] = [];

  const targetOf = (r: RegistryProcess): FuzzTarget => ({ host: '127.0.0.1', port: r.port });

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'svc-registry-fuzz-'));
    canary = await mkdtemp(join(tmpdir(), 'svc-fuzz-canary-'));
    const htpasswd = join(scratch, 'htpasswd');
    await writeFile(htpasswd, `alice:${bcrypt.hashSync('secret', 5)}\n`);
    open = await startRegistry();
    guarded = await startRegistry({ config: { auth: { token: { htpasswd } } } });
    manifest = await pushSmallImage(open.url, 'fuzz/base', 'fuzz');
    assert.equal((await putManifest(open.url, 'fuzz/base', 'v1', manifest)).status, 201);
    console.log(
      `seed ${seed}; registry RSS ${rssMiB(open.child.pid!)} MiB before (token registry ${rssMiB(guarded.child.pid!)} MiB)`,
    );
  });

  after(async () => {
    if (open?.child.pid) {
      const sent = ledgers.reduce((n, l) => n + l.sent, 0);
      console.log(
        `registry RSS ${rssMiB(open.child.pid)} MiB after ${sent} hostile requests (token registry ${rssMiB(guarded.child.pid!)} MiB)`,
      );
    }
    await open?.stop();
    await guarded?.stop();
    await rm(canary, { recursive: true, force: true });
    await rm(scratch, { recursive: true, force: true });
  });

  /** The same processes still answer /v2/. */
  async function assertAlive(): Promise<void> {
    for (const r of [open, guarded]) {
      assert.equal(r.child.exitCode, null, `registry exited: ${r.stderr().slice(-2000)}`);
      const res = await http(`${r.url}/v2/`);
      assert.ok(res.status === 200 || res.status === 401, `/v2/ answered ${res.status}`);
    }
  }

  async function assertNothingEscaped(): Promise<void> {
    assert.deepEqual(await readdir(canary), [], 'the canary directory outside the data dir stays empty');
    for (const dir of ['/', tmpdir(), dirname(open.dataDir), dirname(guarded.dataDir)]) {
      const marked = (await readdir(dir)).filter((n) => n.includes(marker));
      assert.deepEqual(marked, [], `nothing written in ${dir}`);
    }
  }

  function hostileName(rng: Prng): string {
    const up = '../'.repeat(10);
    const raw = rng.pick([
      'fuzz/base',
      'fuzz/new',
      `fuzz/${marker}`,
      `${up}${canary.slice(1)}/${marker}`,
      `fuzz/${up}${canary.slice(1)}/${marker}`,
      `${canary}/${marker}`,
      `fuzz/./${marker}`,
      `fuzz/${marker}/..`,
      'Fuzz/UPPER',
      'a'.repeat(300),
      `${'a/'.repeat(200)}b`,
      '_',
      'a//b',
      'a__b',
      '-a',
      hostileString(rng),
    ]);
    // Most names go as they are (slashes and dots included); some percent-encoded whole.
    return rng.chance(0.8) ? raw.replace(/[^\x21-\x7e]|[?#%]/g, '_') : encodeAny(raw);
  }

  function hostileReference(rng: Prng, digest: string): string {
    return rng.pick([
      'v1',
      digest,
      hostileSegment(rng),
      `sha256:${'0'.repeat(64)}`,
      `sha256:${digest.slice(7).toUpperCase()}`,
      `sha256:${digest.slice(7, 20)}`,
      'sha384:abc',
      `${'t'.repeat(129)}`,
      '.hidden',
      '-tag',
      'sha256%3A' + digest.slice(7),
    ]);
  }

  const hostileHeaders = (rng: Prng): Record<string, string> => {
    const headers: Record<string, string> = {};
    if (rng.chance(0.3))
      headers['Content-Range'] = rng.pick([
        '0-',
        '-1-5',
        '5-1',
        `0-${2 ** 64}`,
        'bytes=0-10',
        '1e3-2e3',
        'a-b',
        '0-0',
      ]);
    if (rng.chance(0.3))
      headers['Content-Type'] = rng.pick([
        'application/json',
        'application/vnd.oci.image.index.v1+json',
        'text/html',
        '',
        'application/vnd.docker.distribution.manifest.v1+prettyjws',
      ]);
    if (rng.chance(0.2))
      headers.Range = rng.pick([
        'bytes=0-',
        'bytes=-1',
        'bytes=5-1',
        `bytes=0-${2 ** 64}`,
        'bytes=0-1,2-3',
        'items=0-1',
      ]);
    if (rng.chance(0.2))
      headers.Authorization = rng.pick([
        'Basic %%%',
        'Basic ' + Buffer.from('alice:wrong').toString('base64'),
        'Bearer a.b.c',
        'Bearer ' + 'x'.repeat(5000),
        'Digest x',
        'Basic ' + Buffer.from(':').toString('base64'),
      ]);
    if (rng.chance(0.1)) headers['If-None-Match'] = rng.pick(['*', '"sha256:x"', 'W/"x"']);
    return headers;
  };

  test(`every route, ${perOperation} hostile requests per operation`, async () => {
    const ledger = new FuzzLedger();
    ledgers.push(ledger);
    const rng = new Prng(seed);
    const digest = sha256(manifest);
    const before = rssMiB(open.child.pid!);
    for (const route of routes) {
      for (const [method, op] of Object.entries(route.methods)) {
        if (!op) continue;
        for (let i = 0; i < perOperation; i++) {
          // A live upload for the upload routes half of the time, so the state machine is reached.
          const uuid =
            op.name.includes('Upload') || op.name === 'patchBlobData' ? await liveUpload(rng) : undefined;
          const path = pathOf(route.pattern, (group) => {
            if (group === 'name') return hostileName(rng);
            if (group === 'reference' || group === 'digest') return hostileReference(rng, digest);
            return uuid ?? hostileSegment(rng);
          });
          let body: string | Buffer | undefined;
          if (method === 'PUT' && op.name === 'putManifest')
            body = hostileJsonBody(rng, JSON.parse(manifest.toString()) as Record<string, unknown>);
          else if (method !== 'GET' && method !== 'HEAD' && method !== 'DELETE' && rng.chance(0.7))
            body = randomBytesFrom(rng);
          const query = hostileQuery(rng, knownQuery[op.name] ?? []);
          const c: FuzzCase = {
            method,
            path: `${path}${query}`,
            headers: hostileHeaders(rng),
            body,
            note: op.name,
          };
          const registry = op.name === 'getToken' || rng.chance(0.2) ? guarded : open;
          ledger.record(c, await sendCase(targetOf(registry), c, waitMs));
        }
      }
    }
    console.log(
      `seed ${seed}, ${routes.length} route patterns: ${ledger.summary()}; RSS ${before} -> ${rssMiB(open.child.pid!)} MiB`,
    );
    // Escapes first: they are the worst a hostile name can do.
    await assertNothingEscaped();
    await assertAlive();
    ledger.assertClean();
  });

  /** An upload's UUID started on the open registry, or a hostile one. */
  async function liveUpload(rng: Prng): Promise<string | undefined> {
    if (!rng.chance(0.5)) return undefined;
    const location = new URL(await startUpload(open.url, 'fuzz/base'));
    return location.pathname.split('/').pop();
  }

  /** A body of up to 4 KiB, its bytes from the PRNG (so a run is reproducible). */
  function randomBytesFrom(rng: Prng): Buffer {
    return Buffer.from(Array.from({ length: rng.int(4096) }, () => rng.int(256)));
  }

  test('oversized headers, truncated and stalled bodies', async () => {
    const target = targetOf(open);
    const big = await rawRequest(target, {
      head: `GET /v2/ HTTP/1.1\r\nHost: x\r\nX-Fuzz: ${'a'.repeat(100_000)}`,
      waitMs,
    });
    assert.ok(
      big.status === 431 || big.status === 400 || (big.closed && big.status === undefined),
      JSON.stringify(big),
    );
    // A chunk shorter than its Content-Length, the client then closing its side: the upload
    // stays usable (its status answers and a whole blob can still be pushed to it).
    const location = new URL(await startUpload(open.url, 'fuzz/base'));
    const cut = await rawRequest(target, {
      head: `PATCH ${location.pathname} HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000`,
      body: randomBytes(1000),
      end: true,
      waitMs,
    });
    assert.ok(cut.status === undefined || cut.status < 500, JSON.stringify(cut));
    const status = await http(location.toString());
    assert.ok(
      status.status === 204 || status.status === 404,
      `upload status after a cut chunk: ${status.status}`,
    );
    // Slowloris: stalled heads, chunks and manifests hold sockets, yet the registry answers.
    const stalled = [
      ...Array.from({ length: 10 }, () =>
        rawRequest(target, { head: 'GET /v2/ HTTP/1.1\r\nHost: x\r\nX-Slow: 1', waitMs: 3000 }),
      ),
      ...Array.from({ length: 5 }, async () => {
        const upload = new URL(await startUpload(open.url, 'fuzz/base'));
        return rawRequest(target, {
          head: `PATCH ${upload.pathname} HTTP/1.1\r\nHost: x\r\nContent-Length: 5000`,
          body: randomBytes(100),
          waitMs: 3000,
        });
      }),
      rawRequest(target, {
        head: 'PUT /v2/fuzz/base/manifests/slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/vnd.docker.distribution.manifest.v2+json\r\nContent-Length: 5000',
        body: '{"schemaVersion":',
        waitMs: 3000,
      }),
    ];
    const during = await http(`${open.url}/v2/`);
    assert.equal(during.status, 200, 'the registry answers while slow clients hold sockets');
    for (const outcome of await Promise.all(stalled))
      assert.ok(outcome.status === undefined || outcome.status < 500, JSON.stringify(outcome));
    // After the slow clients gave up, pushes of the same repository still work.
    const blob = randomBytes(3000);
    assert.equal(await pushBlob(open.url, 'fuzz/base', blob), sha256(blob));
    assert.equal((await http(`${open.url}/v2/fuzz/base/manifests/slow`)).status, 404, 'no half manifest');
    await assertAlive();
    await assertNothingEscaped();
  });
});

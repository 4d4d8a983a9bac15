// Three registry processes on one storage (a directory here, one bucket when the suite runs on
// S3) are one registry: what one accepts, the others serve; an upload's chunks may go to any of
// them; pushes of one tag through two at once end consistent; a replica killed mid-upload loses
// nothing committed and the upload goes on through another.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { sha256 } from '../lib/digest';
import { MediaTypes } from '../lib/media-types';
import { http } from '../testing/http-client';
import { pushBlob, pushSmallImage, putManifest, startUpload, withDigest } from './testing/registry-client';
import { startRegistry, type RegistryProcess } from './testing/registry-process';

let replicas: RegistryProcess[];
before(async () => {
  const first = await startRegistry();
  replicas = [
    first,
    await startRegistry({ dataDir: first.dataDir }),
    await startRegistry({ dataDir: first.dataDir }),
  ];
});
after(async () => {
  // The first owns the shared storage dir: it goes last.
  for (const r of [...replicas].reverse()) await r.stop();
});

/** The same upload URL on another replica: a load balancer may send any request anywhere. */
function on(replica: RegistryProcess, location: string): string {
  const url = new URL(location);
  return `${replica.url}${url.pathname}${url.search}`;
}

const octet = { 'Content-Type': 'application/octet-stream' };

test('a push through one replica is served by the others', async () => {
  const [a, b, c] = replicas;
  const body = await pushSmallImage(a.url, 'rep/app', 'one');
  assert.equal((await putManifest(a.url, 'rep/app', 'v1', body)).status, 201);
  for (const r of [b, c]) {
    const res = await http(`${r.url}/v2/rep/app/manifests/v1`, {
      headers: { Accept: MediaTypes.dockerManifest },
    });
    assert.equal(res.status, 200);
    assert.ok(res.body.equals(body));
    const layer = JSON.parse(body.toString()).layers[0].digest as string;
    assert.equal(sha256((await http(`${r.url}/v2/rep/app/blobs/${layer}`)).body), layer);
    assert.deepEqual((await http(`${r.url}/v2/rep/app/tags/list`)).json<{ tags: string[] }>().tags, ['v1']);
    assert.ok(
      (await http(`${r.url}/v2/_catalog`))
        .json<{ repositories: string[] }>()
        .repositories.includes('rep/app'),
    );
  }
});

test('the chunks of one upload go to different replicas, small and large, and the digest is verified', async () => {
  const sizes = [100 << 10, 3 << 20, 7 << 20, 1, 6 << 20, 2 << 20];
  const data = randomBytes(sizes.reduce((a, b) => a + b, 0));
  let location = await startUpload(replicas[0].url, 'rep/chunks');
  let start = 0;
  for (const [i, size] of sizes.entries()) {
    const res = await http(on(replicas[i % 3], location), {
      method: 'PATCH',
      body: data.subarray(start, start + size),
      headers: { ...octet, 'Content-Range': `${start}-${start + size - 1}` },
    });
    assert.equal(res.status, 202, res.body.toString());
    start += size;
    assert.equal(res.headers.range, `0-${start - 1}`);
    location = res.headers.location as string;
  }
  const wrong = await http(withDigest(on(replicas[1], location), sha256('not it')), { method: 'PUT' });
  assert.equal(wrong.status, 400);
  location = await startUpload(replicas[2].url, 'rep/chunks');
  start = 0;
  for (const [i, size] of sizes.entries()) {
    const res = await http(on(replicas[(i + 1) % 3], location), {
      method: 'PATCH',
      body: data.subarray(start, start + size),
      headers: octet,
    });
    assert.equal(res.status, 202);
    start += size;
  }
  const done = await http(withDigest(on(replicas[0], location), sha256(data)), { method: 'PUT' });
  assert.equal(done.status, 201, done.body.toString());
  const pulled = await http(`${replicas[1].url}/v2/rep/chunks/blobs/${sha256(data)}`);
  assert.ok(pulled.body.equals(data), 'the blob holds every chunk in order');
});

test('two replicas pushing the same tag and blobs at once end consistent', async () => {
  const [a, b, c] = replicas;
  const layer = randomBytes(6 << 20);
  const [one, two] = await Promise.all(
    [a, b].map(async (r, i) => {
      await pushBlob(r.url, 'rep/race', layer);
      const body = await pushSmallImage(r.url, 'rep/race', `racer-${i}`);
      assert.equal((await putManifest(r.url, 'rep/race', 'latest', body)).status, 201);
      return body;
    }),
  );
  const seen = await Promise.all(
    replicas.map(
      async (r) =>
        (await http(`${r.url}/v2/rep/race/manifests/latest`, { method: 'HEAD' })).headers[
          'docker-content-digest'
        ],
    ),
  );
  assert.equal(new Set(seen).size, 1, 'every replica names one manifest for the tag');
  assert.ok([sha256(one), sha256(two)].map(String).includes(String(seen[0])));
  for (const body of [one, two])
    assert.equal((await http(`${c.url}/v2/rep/race/manifests/${sha256(body)}`)).status, 200);
  assert.ok((await http(`${c.url}/v2/rep/race/blobs/${sha256(layer)}`)).body.equals(layer));
});

test('a replica killed mid-upload loses nothing committed; the upload goes on through another', async () => {
  const victim = await startRegistry({ dataDir: replicas[0].dataDir });
  const kept = await pushSmallImage(victim.url, 'rep/kill', 'kept');
  assert.equal((await putManifest(victim.url, 'rep/kill', 'kept', kept)).status, 201);
  const data = randomBytes(14 << 20);
  const location = await startUpload(victim.url, 'rep/kill');
  // A chunk streaming when the replica dies: some of it may have been stored, some not.
  await new Promise<void>((resolve) => {
    const req = request(location, { method: 'PATCH', headers: octet });
    req.on('error', () => resolve());
    req.on('response', () => resolve());
    req.write(data.subarray(0, 11 << 20), () => setTimeout(() => void victim.kill(), 300));
  });
  await victim.kill();
  const [, b, c] = replicas;
  const status = await http(on(b, location));
  assert.equal(status.status, 204, status.body.toString());
  // "0-0" is the empty upload (chunks here are far larger than a byte).
  const range = status.headers.range as string;
  const offset = range === '0-0' ? 0 : Number(/^0-(\d+)$/.exec(range)![1]) + 1;
  assert.ok(offset <= 11 << 20, `offset ${offset}`);
  const rest = await http(on(c, location), {
    method: 'PATCH',
    body: data.subarray(offset),
    headers: { ...octet, 'Content-Range': `${offset}-${data.length - 1}` },
  });
  assert.equal(rest.status, 202, rest.body.toString());
  const done = await http(withDigest(on(b, location), sha256(data)), { method: 'PUT' });
  assert.equal(done.status, 201, done.body.toString());
  assert.ok((await http(`${b.url}/v2/rep/kill/blobs/${sha256(data)}`)).body.equals(data));
  const manifest = await http(`${c.url}/v2/rep/kill/manifests/kept`, {
    headers: { Accept: MediaTypes.dockerManifest },
  });
  assert.ok(manifest.body.equals(kept), 'what the killed replica committed is served');
});

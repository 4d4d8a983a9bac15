// A pull stops when its client goes away: a throttling proxy in front of Distribution keeps the
// download slow, the client disconnects mid-layer, and svcd leaves no ingest, lease or image.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { destroySvcd, startSvcd, type SvcdInstance } from '../../../testing/svcd-harness';
import { startDistribution, type Distribution } from '../../../testing/distribution';
import { DirectoryBlobStore } from '../../../engine/testing/directory-blob-store';
import { buildImage, layerTar } from '../../../engine/testing/test-image';
import { RegistryClient } from '../../../engine/images/distribution/registry-client';
import { pushImage } from '../../../engine/images/distribution/push';
import { ContainerdClient } from '../../../runtime/containerd/client';

let svcd: SvcdInstance;
let registry: Distribution;
let proxy: Server;
let proxyHost: string;
let scratch: string;

/** Forwards to the registry, sending blob bodies at about 1 MB/s. */
function throttlingProxy(target: string): Server {
  return createServer((req, res) => {
    const upstream = request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      if (!req.url?.includes('/blobs/')) return void up.pipe(res);
      up.on('data', (chunk: Buffer) => {
        up.pause();
        res.write(chunk);
        setTimeout(() => up.resume(), Math.ceil(chunk.length / 1000));
      });
      up.on('end', () => res.end());
      res.on('close', () => up.destroy());
    });
    req.pipe(upstream);
  });
}

before(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'images-cancel-'));
  [registry, svcd] = await Promise.all([startDistribution(), startSvcd()]);
  proxy = throttlingProxy(registry.url);
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyHost = `127.0.0.1:${(proxy.address() as { port: number }).port}`;
  const store = new DirectoryBlobStore(path.join(scratch, 'blobs'));
  const image = await buildImage(store, [await layerTar({ big: randomBytes(16 << 20) })]);
  await pushImage({
    client: new RegistryClient({ host: registry.host }),
    repository: 'slow',
    tag: '1',
    target: image.manifest,
    source: store,
  });
});

after(async () => {
  proxy?.close();
  await destroySvcd(svcd);
  await registry?.stop();
  await rm(scratch, { recursive: true, force: true });
});

test('a client that disconnects cancels its pull', async () => {
  await new Promise<void>((resolve, reject) => {
    const req = request(
      { socketPath: svcd.socket, method: 'POST', path: `/images/create?fromImage=${proxyHost}/slow&tag=1` },
      (res) => {
        res.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('"Downloading"')) {
            req.destroy();
            resolve();
          }
        });
      },
    );
    req.on('error', () => undefined);
    req.setTimeout(30_000, () => reject(new Error('no download progress')));
    req.end();
  });
  const containerd = ContainerdClient.connect(
    path.join(svcd.dataRoot, 'containerd', 'containerd.sock'),
    'svc',
  );
  try {
    // Generous: beside other suites on a loaded machine the cleanup can take a while.
    const deadline = Date.now() + 60_000;
    let left = { ingests: -1, leases: -1 };
    while (Date.now() < deadline) {
      left = {
        ingests: (await containerd.content.listStatuses()).length,
        leases: (await containerd.leases.list()).length,
      };
      if (left.ingests === 0 && left.leases === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(left, { ingests: 0, leases: 0 });
    // The same svcd answers: a cancelled pull must not take it down (its lease would stay).
    assert.equal((await svcd.request('GET', '/_ping')).status, 200);
  } finally {
    containerd.close();
  }
  assert.equal((await svcd.request('GET', `/images/${proxyHost}/slow:1/json`)).status, 404);
  const events = await svcd.request('GET', `/events?since=0&until=${Math.ceil(Date.now() / 1000) + 1}`);
  assert.ok(!events.text().includes('"pull"'), 'no pull event for a cancelled pull');
});

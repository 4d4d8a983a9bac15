import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { NotFoundError, UnauthorizedError } from '../../../api/errors';
import { parseReference, withDefaultTag } from '../../shared/reference';
import { RegistryClient } from './registry-client';
import { pullImage } from './pull';
import { pushImage } from './push';
import { startDistribution, type Distribution } from '../../../testing/distribution';
import { startTokenServer, type TokenServer } from '../../../testing/token-server';
import { DirectoryBlobStore } from '../../testing/directory-blob-store';
import { buildImage, buildIndex, busyboxLayer, layerTar, type TestImage } from '../../testing/test-image';
import type { ProgressEvent } from './types';
import type { AuthConfig } from './auth-config';

let dir: string;
let n = 0;
const freshStore = () => new DirectoryBlobStore(path.join(dir, `store-${n++}`));

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'registry-client-test-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function ref(registry: Distribution, name: string) {
  return withDefaultTag(parseReference(`${registry.host}/${name}`));
}

async function push(
  registry: Distribution,
  source: DirectoryBlobStore,
  image: { manifest: { digest: string; mediaType: string; size: number } },
  repository: string,
  tag: string,
  extra: Partial<Parameters<typeof pushImage>[0]> = {},
  auth?: AuthConfig,
) {
  const events: ProgressEvent[] = [];
  const client = new RegistryClient({ host: registry.host, auth });
  const result = await pushImage({
    client,
    repository,
    tag,
    target: image.manifest,
    source,
    onProgress: (e) => events.push(e),
    ...extra,
  });
  return { result, events };
}

async function pull(
  registry: Distribution,
  name: string,
  options: { platform?: string; auth?: AuthConfig; sink?: DirectoryBlobStore } = {},
) {
  const events: ProgressEvent[] = [];
  const sink = options.sink ?? freshStore();
  const client = new RegistryClient({ host: registry.host, auth: options.auth });
  const image = await pullImage({
    client,
    reference: ref(registry, name),
    sink,
    platform: options.platform,
    onProgress: (e) => events.push(e),
  });
  return { image, events, sink };
}

async function assertSameBlobs(a: DirectoryBlobStore, b: DirectoryBlobStore, digests: string[]) {
  for (const digest of digests) {
    assert.deepEqual(await readFile(b.blobPath(digest)), await readFile(a.blobPath(digest)), digest);
  }
}

describe('against Distribution 2.8, anonymous', () => {
  let registry: Distribution;
  let source: DirectoryBlobStore;
  let image: TestImage;

  before(async () => {
    registry = await startDistribution();
    source = freshStore();
    image = await buildImage(source, [await busyboxLayer(), await layerTar({ 'etc/motd': 'hello\n' })]);
  });
  after(() => registry?.stop());

  test('push an assembled image, then pull it back', async () => {
    const { result, events } = await push(registry, source, image, 'test/busybox', 'v1');
    assert.equal(result.digest, image.manifest.digest);
    assert.deepEqual(
      events
        .filter((e) => e.status === 'Pushed')
        .map((e) => e.id)
        .sort(),
      image.layers.map((l) => l.digest.slice(7, 19)).sort(),
    );
    const pulled = await pull(registry, 'test/busybox:v1');
    assert.equal(pulled.image.digest, image.manifest.digest);
    assert.equal(pulled.image.config.digest, image.config.digest);
    assert.deepEqual(pulled.image.image.rootfs?.diff_ids, image.diffIds);
    assert.deepEqual(pulled.image.existingLayers, []);
    await assertSameBlobs(source, pulled.sink, [
      image.manifest.digest,
      image.config.digest,
      ...image.layers.map((l) => l.digest),
    ]);
    const statuses = new Set(pulled.events.map((e) => e.status));
    for (const s of ['Pulling fs layer', 'Verifying Checksum', 'Download complete'])
      assert.ok(statuses.has(s), s);
  });

  test('pushing an image whose blobs exist skips them; pulling into a store that has them skips them', async () => {
    const { events } = await push(registry, source, image, 'test/busybox', 'v2');
    assert.equal(events.filter((e) => e.status === 'Layer already exists').length, image.layers.length);
    assert.equal(events.filter((e) => e.status === 'Pushing').length, 0);
    const sink = freshStore();
    await pull(registry, 'test/busybox:v1', { sink });
    const again = await pull(registry, 'test/busybox:v2', { sink });
    assert.deepEqual(again.image.existingLayers.sort(), image.layers.map((l) => l.digest).sort());
    assert.equal(again.events.filter((e) => e.status === 'Already exists').length, image.layers.length);
  });

  test('cross-repository mount', async () => {
    const { events } = await push(registry, source, image, 'other/copy', 'latest', {
      mountFrom: () => ['test/busybox'],
    });
    assert.equal(events.filter((e) => e.status === 'Mounted from test/busybox').length, image.layers.length);
    const pulled = await pull(registry, 'other/copy');
    assert.equal(pulled.image.digest, image.manifest.digest);
  });

  test('chunked upload', async () => {
    const big = await buildImage(source, [await layerTar({ 'data/random': randomBytes(300 * 1024) })], {
      oci: true,
    });
    const { events } = await push(registry, source, big, 'test/chunked', 'latest', { chunkSize: 64 * 1024 });
    assert.ok(events.some((e) => e.status === 'Pushed'));
    const pulled = await pull(registry, 'test/chunked');
    await assertSameBlobs(source, pulled.sink, [big.layers[0].digest]);
  });

  test('an index resolves to linux/amd64 by default and honours a platform', async () => {
    const amd64 = image;
    const arm64 = await buildImage(source, [await layerTar({ arch: 'arm64' })], {
      platform: { os: 'linux', architecture: 'arm64', variant: 'v8' },
    });
    for (const oci of [true, false]) {
      const index = await buildIndex(
        source,
        [
          { manifest: arm64.manifest, platform: { os: 'linux', architecture: 'arm64', variant: 'v8' } },
          { manifest: amd64.manifest, platform: { os: 'linux', architecture: 'amd64' } },
        ],
        oci,
      );
      const tag = oci ? 'oci-index' : 'manifest-list';
      await push(registry, source, { manifest: index }, 'test/multi', tag);
      const byDefault = await pull(registry, `test/multi:${tag}`);
      assert.equal(byDefault.image.digest, index.digest);
      assert.equal(byDefault.image.target.digest, index.digest);
      assert.equal(byDefault.image.manifest.digest, amd64.manifest.digest);
      assert.ok(await byDefault.sink.has(index.digest));
      const arm = await pull(registry, `test/multi:${tag}`, { platform: 'linux/arm64' });
      assert.equal(arm.image.manifest.digest, arm64.manifest.digest);
      await assert.rejects(
        pull(registry, `test/multi:${tag}`, { platform: 'linux/s390x' }),
        /no matching manifest for linux\/s390x/,
      );
    }
  });

  test('pull by digest, list tags', async () => {
    const pulled = await pull(registry, `test/busybox@${image.manifest.digest}`);
    assert.equal(pulled.image.manifest.digest, image.manifest.digest);
    const client = new RegistryClient({ host: registry.host });
    assert.deepEqual((await client.listTags('test/busybox')).sort(), ['v1', 'v2']);
  });

  test('a missing tag or repository is NotFoundError with Docker wording', async () => {
    await assert.rejects(
      pull(registry, 'test/busybox:nope'),
      (err: unknown) =>
        err instanceof NotFoundError &&
        /manifest for .*test\/busybox:nope not found: manifest unknown/.test(err.message),
    );
    await assert.rejects(
      pull(registry, 'no/such'),
      (err: unknown) => err instanceof NotFoundError && /no\/such/.test(err.message),
    );
  });

  test('a corrupted blob fails with a digest mismatch and nothing is committed', async () => {
    const victim = await buildImage(source, [await layerTar({ victim: randomBytes(50_000) })]);
    await push(registry, source, victim, 'test/corrupt', 'latest');
    const file = registry.blobFile(victim.layers[0].digest);
    const original = await readFile(file);
    const corrupt = Buffer.from(original);
    corrupt[corrupt.length >> 1] ^= 0xff;
    await writeFile(file, corrupt);
    const sink = freshStore();
    await assert.rejects(
      pull(registry, 'test/corrupt', { sink }),
      new RegExp(`digest mismatch: expected ${victim.layers[0].digest}`),
    );
    assert.equal(await sink.has(victim.layers[0].digest), false);
    const { blobs, ingest } = await sink.contents();
    assert.deepEqual(ingest, []);
    assert.ok(!blobs.includes(victim.manifest.digest), 'the manifest is not committed either');
  });

  test('a pull is cancelled by its AbortSignal', async () => {
    const controller = new AbortController();
    controller.abort();
    const client = new RegistryClient({ host: registry.host });
    await assert.rejects(
      pullImage({
        client,
        reference: ref(registry, 'test/busybox:v1'),
        sink: freshStore(),
        signal: controller.signal,
      }),
      { name: 'AbortError' },
    );
  });
});

describe('against Distribution 2.8 with htpasswd basic auth', () => {
  let registry: Distribution;
  const user = { username: 'alice', password: 's3cret' };
  before(async () => {
    registry = await startDistribution({ basic: user });
  });
  after(() => registry?.stop());

  test('push and pull with credentials; wrong or no credentials are refused', async () => {
    const source = freshStore();
    const image = await buildImage(source, [await layerTar({ f: 'basic' })]);
    await push(registry, source, image, 'private/app', 'latest', {}, user);
    const pulled = await pull(registry, 'private/app', {
      auth: { auth: Buffer.from('alice:s3cret').toString('base64') },
    });
    assert.equal(pulled.image.digest, image.manifest.digest);
    await assert.rejects(pull(registry, 'private/app'), NotFoundError);
    await assert.rejects(
      push(registry, source, image, 'private/app', 'x', {}, { username: 'alice', password: 'wrong' }),
      UnauthorizedError,
    );
    await new RegistryClient({ host: registry.host, auth: user }).checkAuth();
    await assert.rejects(
      new RegistryClient({ host: registry.host, auth: { username: 'bob', password: 'x' } }).checkAuth(),
      UnauthorizedError,
    );
  });
});

describe('against Distribution 2.8 with token auth', () => {
  let registry: Distribution;
  let tokens: TokenServer;
  const user = { username: 'carol', password: 'pa55' };
  before(async () => {
    tokens = await startTokenServer(dir, user);
    registry = await startDistribution({ token: tokens });
  });
  after(async () => {
    await registry?.stop();
    await tokens?.stop();
  });

  test('the bearer flow: challenge, token with basic credentials for the scopes, retry', async () => {
    const source = freshStore();
    const image = await buildImage(source, [await layerTar({ f: 'token' })]);
    await push(registry, source, image, 'team/app', 'latest', {}, user);
    const pushRequest = tokens.requests.find(
      (r) => r.grant === 'basic' && r.scopes.includes('repository:team/app:pull,push'),
    );
    assert.ok(pushRequest, JSON.stringify(tokens.requests));
    const pulled = await pull(registry, 'team/app', { auth: user });
    assert.equal(pulled.image.digest, image.manifest.digest);
    assert.ok(
      tokens.requests.some((r) => r.grant === 'basic' && r.scopes.includes('repository:team/app:pull')),
    );
  });

  test('an identity token is exchanged with the refresh_token grant (POST)', async () => {
    const before = tokens.requests.length;
    const pulled = await pull(registry, 'team/app', { auth: { identitytoken: tokens.refreshToken } });
    assert.ok(pulled.image.digest.startsWith('sha256:'));
    const used = tokens.requests.slice(before);
    assert.ok(
      used.length > 0 && used.every((r) => r.method === 'POST' && r.grant === 'refresh_token'),
      JSON.stringify(used),
    );
  });

  test('anonymous tokens carry no access: the pull is refused', async () => {
    await assert.rejects(pull(registry, 'team/app'), NotFoundError);
  });
});

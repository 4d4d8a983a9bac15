// Pull, push and login through svcd against a real Distribution 2.8 registry on loopback.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { destroySvcd, engineEvents, startSvcd, type SvcdInstance } from '../../../testing/svcd-harness';
import { eventsSince } from '../../../testing/engine-client';
import { importBusybox } from '../../../testing/busybox-image';
import { jsonMessages, streamError } from '../../../testing/json-messages';
import { startDistribution, type Distribution } from '../../../testing/distribution';
import { DirectoryBlobStore } from '../../../engine/testing/directory-blob-store';
import { buildImage, buildIndex, layerTar } from '../../../engine/testing/test-image';
import { RegistryClient } from '../../../engine/images/distribution/registry-client';
import { pushImage } from '../../../engine/images/distribution/push';
import type { Descriptor } from '../../../api/manifest-types';
import type { ImageInspect } from '../../../api/image-types';

let svcd: SvcdInstance;
let registry: Distribution;
let secured: Distribution;
let scratch: string;
let busyboxId: string;
const user = { username: 'alice', password: 's3cret' };
const authHeader = (auth: object) => ({
  'X-Registry-Auth': Buffer.from(JSON.stringify(auth)).toString('base64url'),
});

async function inspect(name: string): Promise<ImageInspect> {
  const res = await svcd.request('GET', `/images/${name}/json`);
  assert.equal(res.status, 200, res.text());
  return res.json<ImageInspect>();
}

function statuses(res: Awaited<ReturnType<SvcdInstance['request']>>): string[] {
  return jsonMessages(res).map((m) => m.status ?? '');
}

/** Puts an image straight into a registry (not through svcd), from a test blob store. */
async function seed(
  target: Distribution,
  repository: string,
  tag: string,
  top: Descriptor,
  store: DirectoryBlobStore,
) {
  const client = new RegistryClient({ host: target.host });
  await pushImage({ client, repository, tag, target: top, source: store });
}

before(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'images-registry-'));
  [registry, secured, svcd] = await Promise.all([
    startDistribution(),
    startDistribution({ basic: user }),
    startSvcd({ args: ['--log-level', 'debug'], keepLog: true }),
  ]);
  busyboxId = await importBusybox(svcd);
});

after(async () => {
  await destroySvcd(svcd);
  await Promise.all([registry?.stop(), secured?.stop()]);
  await rm(scratch, { recursive: true, force: true });
});

describe('push', () => {
  test('pushes every layer, then reports the digest; again, layers already exist', async () => {
    assert.equal(
      (await svcd.request('POST', `/images/busybox/tag?repo=${registry.host}/app&tag=1`)).status,
      201,
    );
    const res = await svcd.request('POST', `/images/${registry.host}/app/push?tag=1`);
    assert.equal(res.status, 200);
    assert.equal(streamError(res), undefined, res.text());
    const all = statuses(res);
    assert.equal(all[0], `The push refers to repository [${registry.host}/app]`);
    assert.ok(all.includes('Pushed'), res.text());
    const aux = jsonMessages(res).find((m) => m.aux)?.aux as { Digest: string; Tag: string };
    assert.equal(aux.Tag, '1');
    assert.ok(
      all.includes(`1: digest: ${aux.Digest} size: ${jsonMessages(res).find((m) => m.aux)?.aux?.Size}`),
    );
    const head = await fetch(`${registry.url}/v2/app/manifests/1`, {
      method: 'HEAD',
      headers: { Accept: 'application/vnd.docker.distribution.manifest.v2+json' },
    });
    assert.equal(head.headers.get('docker-content-digest'), aux.Digest);
    assert.deepEqual((await inspect(`${registry.host}/app:1`)).RepoDigests, [
      `${registry.host}/app@${aux.Digest}`,
    ]);

    const again = await svcd.request('POST', `/images/${registry.host}/app/push?tag=1`);
    assert.ok(statuses(again).includes('Layer already exists'), again.text());
  });

  test('a layer in another repository of the registry is mounted, not uploaded', async () => {
    await svcd.request('POST', `/images/busybox/tag?repo=${registry.host}/other&tag=1`);
    const res = await svcd.request('POST', `/images/${registry.host}/other/push`);
    assert.equal(streamError(res), undefined, res.text());
    assert.ok(statuses(res).includes('Mounted from app'), res.text());
  });

  test('errors: an image that is not there (404); auth required (in the stream)', async () => {
    assert.equal((await svcd.request('POST', `/images/${registry.host}/nothing/push`)).status, 404);
    await svcd.request('POST', `/images/busybox/tag?repo=${secured.host}/app&tag=1`);
    const denied = await svcd.request('POST', `/images/${secured.host}/app/push?tag=1`);
    assert.match(streamError(denied) ?? '', /unauthorized|authentication required/i);
  });

  test('with X-Registry-Auth against htpasswd', async () => {
    const res = await svcd.request('POST', `/images/${secured.host}/app/push?tag=1`, {
      headers: authHeader(user),
    });
    assert.equal(streamError(res), undefined, res.text());
    assert.ok(statuses(res).includes('Pushed'));
  });
});

describe('pull', () => {
  test('a tag: layers downloaded, verified and unpacked; the image gets its tag and digest', async () => {
    for (const name of [
      `${registry.host}/app:1`,
      `${registry.host}/other:1`,
      `${secured.host}/app:1`,
      'busybox',
    ]) {
      await svcd.request('DELETE', `/images/${name}`);
    }
    assert.equal((await svcd.request('GET', `/images/${busyboxId}/json`)).status, 404);
    const res = await svcd.request('POST', `/images/create?fromImage=${registry.host}/app&tag=1`);
    assert.equal(res.status, 200);
    assert.equal(streamError(res), undefined, res.text());
    const all = statuses(res);
    for (const s of [
      'Pulling fs layer',
      'Downloading',
      'Verifying Checksum',
      'Download complete',
      'Extracting',
      'Pull complete',
    ]) {
      assert.ok(all.includes(s), `${s} in ${res.text()}`);
    }
    const digest = all.find((s) => s.startsWith('Digest: '))!.slice(8);
    assert.equal(all.at(-1), `Status: Downloaded newer image for ${registry.host}/app:1`);
    const image = await inspect(`${registry.host}/app:1`);
    assert.equal(image.Id, busyboxId);
    assert.deepEqual(image.RepoDigests, [`${registry.host}/app@${digest}`]);
    assert.equal((await inspect(`${registry.host}/app@${digest}`)).Id, busyboxId);
    const again = await svcd.request('POST', `/images/create?fromImage=${registry.host}/app:1`);
    assert.ok(
      statuses(again).includes(`Status: Image is up to date for ${registry.host}/app:1`),
      again.text(),
    );

    // As dockerd: removing the tag lists the digest reference dropped with it, announces the tag alone.
    assert.equal((await svcd.request('POST', `/images/${busyboxId}/tag?repo=keep&tag=1`)).status, 201);
    const since = await eventsSince();
    const removed = await svcd.request('DELETE', `/images/${registry.host}/app:1`);
    assert.deepEqual(removed.json(), [
      { Untagged: `${registry.host}/app:1` },
      { Untagged: `${registry.host}/app@${digest}` },
    ]);
    assert.deepEqual(
      (await engineEvents(svcd, since, { type: ['image'] })).map((e) => e.Action),
      ['untag'],
    );
    const restored = await svcd.request('POST', `/images/create?fromImage=${registry.host}/app:1`);
    assert.equal(streamError(restored), undefined, restored.text());
    assert.equal((await svcd.request('DELETE', '/images/keep:1')).status, 200);
  });

  test('by digest, and every tag when the tag is empty; existing layers are skipped', async () => {
    const head = await fetch(`${registry.url}/v2/app/manifests/1`, {
      method: 'HEAD',
      headers: { Accept: 'application/vnd.docker.distribution.manifest.v2+json' },
    });
    const digest = head.headers.get('docker-content-digest')!;
    const byDigest = await svcd.request(
      'POST',
      `/images/create?fromImage=${registry.host}/other&tag=${digest}`,
    );
    assert.equal(streamError(byDigest), undefined, byDigest.text());
    assert.ok(statuses(byDigest).includes('Already exists'), byDigest.text());
    assert.equal((await inspect(`${registry.host}/other@${digest}`)).Id, busyboxId);

    const store = new DirectoryBlobStore(path.join(scratch, 'tags'));
    for (const tag of ['a', 'b']) {
      const image = await buildImage(store, [await layerTar({ [`file-${tag}`]: tag })]);
      await seed(registry, 'tags', tag, image.manifest, store);
    }
    const res = await svcd.request('POST', `/images/create?fromImage=${registry.host}/tags`);
    assert.equal(streamError(res), undefined, res.text());
    assert.ok(
      (await inspect(`${registry.host}/tags:a`)).Id !== (await inspect(`${registry.host}/tags:b`)).Id,
    );
  });

  test('two pulls of the same image at once both succeed', async () => {
    const store = new DirectoryBlobStore(path.join(scratch, 'twice'));
    const image = await buildImage(store, [
      await layerTar({ big: Buffer.alloc(8 << 20, 1) }),
      await layerTar({ small: 's' }),
    ]);
    await seed(registry, 'twice', '1', image.manifest, store);
    const [a, b] = await Promise.all([
      svcd.request('POST', `/images/create?fromImage=${registry.host}/twice&tag=1`),
      svcd.request('POST', `/images/create?fromImage=${registry.host}/twice&tag=1`),
    ]);
    assert.equal(streamError(a), undefined, a.text());
    assert.equal(streamError(b), undefined, b.text());
    assert.equal((await inspect(`${registry.host}/twice:1`)).Id, image.config.digest);
  });

  test('a manifest list resolves to linux/amd64, or to the platform asked for', async () => {
    const store = new DirectoryBlobStore(path.join(scratch, 'multi'));
    const amd64 = await buildImage(store, [await layerTar({ arch: 'amd64' })], {
      platform: { os: 'linux', architecture: 'amd64' },
    });
    const arm64 = await buildImage(store, [await layerTar({ arch: 'arm64' })], {
      platform: { os: 'linux', architecture: 'arm64', variant: 'v8' },
    });
    const index = await buildIndex(store, [
      { manifest: arm64.manifest, platform: { os: 'linux', architecture: 'arm64', variant: 'v8' } },
      { manifest: amd64.manifest, platform: { os: 'linux', architecture: 'amd64' } },
    ]);
    await seed(registry, 'multi', 'latest', index, store);
    const res = await svcd.request('POST', `/images/create?fromImage=${registry.host}/multi&tag=latest`);
    assert.equal(streamError(res), undefined, res.text());
    assert.ok(statuses(res).includes(`Digest: ${index.digest}`));
    const image = await inspect(`${registry.host}/multi`);
    assert.equal(image.Id, amd64.config.digest);
    assert.deepEqual(image.RepoDigests, [`${registry.host}/multi@${index.digest}`]);
    const arm = await svcd.request(
      'POST',
      `/images/create?fromImage=${registry.host}/multi&tag=latest&platform=linux/arm64`,
    );
    assert.equal(streamError(arm), undefined, arm.text());
    const armImage = await inspect(`${registry.host}/multi`);
    assert.equal(armImage.Id, arm64.config.digest);
    assert.equal(armImage.Architecture, 'arm64');
  });

  test('a corrupted blob fails in the stream with a digest error, and nothing is stored', async () => {
    const store = new DirectoryBlobStore(path.join(scratch, 'corrupt'));
    const image = await buildImage(store, [await layerTar({ corrupt: 'x'.repeat(5000) })]);
    await seed(registry, 'corrupt', '1', image.manifest, store);
    await writeFile(registry.blobFile(image.layers[0].digest), Buffer.alloc(image.layers[0].size, 7));
    const res = await svcd.request('POST', `/images/create?fromImage=${registry.host}/corrupt&tag=1`);
    assert.equal(res.status, 200);
    assert.match(
      streamError(res) ?? '',
      /digest mismatch: expected sha256:[0-9a-f]{64}, got sha256:[0-9a-f]{64}/,
      res.text(),
    );
    assert.equal((await svcd.request('GET', `/images/${registry.host}/corrupt:1/json`)).status, 404);
    assert.equal((await svcd.request('GET', `/images/${image.config.digest}/json`)).status, 404);
  });

  test('errors: unknown repository or tag; auth on a protected registry', async () => {
    const missing = await svcd.request('POST', `/images/create?fromImage=${registry.host}/nope&tag=1`);
    assert.match(streamError(missing) ?? missing.text(), /not found|does not exist/);
    const denied = await svcd.request('POST', `/images/create?fromImage=${secured.host}/app&tag=1`);
    assert.match(streamError(denied) ?? denied.text(), /pull access denied|unauthorized/);
    const ok = await svcd.request('POST', `/images/create?fromImage=${secured.host}/app&tag=1`, {
      headers: authHeader(user),
    });
    assert.equal(streamError(ok), undefined, ok.text());
  });

  test('pull and push events were published', async () => {
    const res = await svcd.request(
      'GET',
      `/events?since=0&until=${Math.ceil(Date.now() / 1000) + 1}&filters=${encodeURIComponent('{"type":["image"]}')}`,
    );
    const events = jsonMessages(res) as unknown as { Action: string; Actor: { ID: string } }[];
    assert.ok(events.some((e) => e.Action === 'pull' && e.Actor.ID === `${registry.host}/app:1`));
    assert.ok(events.some((e) => e.Action === 'push' && e.Actor.ID === `${registry.host}/app:1`));
  });
});

describe('POST /auth', () => {
  test('good credentials log in; bad ones are 401', async () => {
    const good = await svcd.request('POST', '/auth', { body: { ...user, serveraddress: secured.host } });
    assert.equal(good.status, 200, good.text());
    assert.equal(good.json<{ Status: string }>().Status, 'Login Succeeded');
    const bad = await svcd.request('POST', '/auth', {
      body: { username: 'alice', password: 'wrong', serveraddress: secured.host },
    });
    assert.equal(bad.status, 401, bad.text());
  });
});

describe('secrets', () => {
  test("passwords and X-Registry-Auth never appear in svcd's log (debug level) or its answers", async () => {
    const wrong = { username: 'alice', password: 'never-in-a-log-7f3a' };
    const answers: string[] = [];
    for (const password of [user.password, wrong.password]) {
      const body = { username: 'alice', password, serveraddress: secured.host };
      answers.push((await svcd.request('POST', '/auth', { body })).text());
      const auth = authHeader({ username: 'alice', password, serveraddress: secured.host });
      answers.push(
        (await svcd.request('POST', `/images/${secured.host}/app/push?tag=1`, { headers: auth })).text(),
      );
      const pull = `/images/create?fromImage=${secured.host}/app&tag=1`;
      answers.push((await svcd.request('POST', pull, { headers: auth })).text());
    }
    assert.match(
      answers.join('\n'),
      /unauthorized|authentication required|401/i,
      'the wrong password was refused',
    );
    const secrets = [user.password, wrong.password].flatMap((password) => [
      password,
      authHeader({ username: 'alice', password, serveraddress: secured.host })['X-Registry-Auth'],
      Buffer.from(`alice:${password}`).toString('base64'),
    ]);
    assert.ok(svcd.log.includes('/auth'), 'the log has the requests');
    for (const secret of secrets) {
      assert.ok(!svcd.log.includes(secret), `svcd's log holds ${secret}`);
      assert.ok(!answers.some((a) => a.includes(secret)), `an answer holds ${secret}`);
    }
  });
});

// The registry browser's registries through a real gateway: the embedded one (a plain
// svc-registry) and one with token auth (a second svc-registry whose token server checks an
// htpasswd file), added over /api/registries. What is checked is what the renderer sees: no
// password comes back, reads work through the token dance, refusals say why, a copy between the
// two registries keeps the digest, deleting a tag keeps its manifest's other tags, and a manifest
// whose bytes are not those of its digest is refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { createServer } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RegistrySummary } from '../../../daemon/api/desktop-types';
import { sha256 } from '../../../daemon/lib/digest';
import { writeHtpasswd } from '../../../daemon/registry/testing/htpasswd-file';
import { putManifest, pushSmallImage } from '../../../daemon/registry/testing/registry-client';
import { freePort } from '../../../daemon/testing/free-port';
import { startRegistry, type RegistryProcess } from '../../../daemon/registry/testing/registry-process';
import { SettingsFile } from '../desktop-settings';
import { AddedRegistries } from '../registries/added-registries';
import { noServices } from '../testing/no-services';
import { startGateway, type Gateway } from './gateway';

let dir: string;
let plain: RegistryProcess;
let guarded: RegistryProcess;
let basic: RegistryProcess;
let gw: Gateway;
let manifest: Buffer;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gateway-registries-'));
  const htpasswd = join(dir, 'htpasswd');
  await writeHtpasswd(htpasswd, { alice: 's3cret-pass' });
  plain = await startRegistry();
  guarded = await startRegistry({
    config: {
      auth: { token: { htpasswd, access: [{ account: 'alice', name: '*', actions: ['*'] }] } },
    },
  });
  for (const repo of ['base/three', 'apps/two', 'apps/one']) {
    manifest = await pushSmallImage(plain.url, repo, repo);
    assert.equal((await putManifest(plain.url, repo, 'v1', manifest)).status, 201);
  }
  // apps/one's manifest, under a second tag.
  assert.equal((await putManifest(plain.url, 'apps/one', 'v2', manifest)).status, 201);
  basic = await startRegistry({ config: { auth: { htpasswd: { path: htpasswd, realm: 'test' } } } });
  const settings = new SettingsFile(join(dir, 'app'));
  gw = await startGateway({
    engineSocket: join(dir, 'no-engine.sock'),
    registryUrl: plain.url,
    services: noServices,
    settings,
    registries: new AddedRegistries(settings, plain.url),
  });
});

after(async () => {
  await gw?.close();
  await plain?.stop();
  await guarded?.stop();
  await basic?.stop();
  await rm(dir, { recursive: true, force: true });
});

const call = (method: string, path: string, body?: unknown) =>
  fetch(gw.url + path, {
    method,
    headers: { authorization: `Bearer ${gw.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('registries of the registry browser', () => {
  let guardedId: string;

  test('the embedded registry is listed first and cannot be removed', async () => {
    const list = (await (await call('GET', '/api/registries')).json()) as RegistrySummary[];
    assert.deepEqual(
      list.map((r) => [r.id, r.host, r.embedded]),
      [['embedded', plain.host, true]],
    );
    assert.equal((await call('DELETE', '/api/registries/embedded')).status, 400);
  });

  test('a token-auth registry with wrong credentials is refused, saying so', async () => {
    const res = await call('POST', '/api/registries', {
      name: 'guarded',
      url: guarded.url,
      auth: 'token',
      username: 'alice',
      password: 'wrong',
    });
    // 403, not 401: a 401 from the gateway means its own token is missing.
    assert.equal(res.status, 403);
    assert.match(
      ((await res.json()) as { message: string }).message,
      /token server .* refused the credentials/,
    );
    assert.equal((await call('POST', '/api/registries', { name: 'x', url: 'ftp://h' })).status, 400);
  });

  test('added with the right credentials, its summary carries no password', async () => {
    const res = await call('POST', '/api/registries', {
      name: 'guarded',
      url: guarded.url,
      auth: 'token',
      username: 'alice',
      password: 's3cret-pass',
    });
    assert.equal(res.status, 201);
    const text = JSON.stringify(await (await call('GET', '/api/registries')).json());
    assert.ok(!text.includes('s3cret-pass'));
    guardedId = ((JSON.parse(text) as RegistrySummary[]).find((r) => r.name === 'guarded') as RegistrySummary)
      .id;
    assert.equal((await call('POST', '/api/registries', { name: 'guarded', url: guarded.url })).status, 409);
    // The settings file is the main process's, and its owner's only.
    const mode = statSync(join(dir, 'app', 'settings.json')).mode & 0o777;
    assert.equal(mode, 0o600);
    assert.match(await readFile(join(dir, 'app', 'settings.json'), 'utf8'), /s3cret-pass/);
  });

  test('the catalog pages with n and last, the next page named by the Link header', async () => {
    const first = await call('GET', '/registries/embedded/v2/_catalog?n=2');
    assert.equal(first.status, 200);
    assert.deepEqual(await first.json(), { repositories: ['apps/one', 'apps/two'] });
    const link = first.headers.get('link');
    assert.match(link ?? '', /<\/v2\/_catalog\?n=2&last=apps%2Ftwo>; rel="next"/);
    const next = await call('GET', '/registries/embedded/v2/_catalog?n=2&last=apps%2Ftwo');
    assert.deepEqual(await next.json(), { repositories: ['base/three'] });
    assert.equal(next.headers.get('link'), null);
  });

  test('copies an image to the token-auth registry; its digest is kept', async () => {
    const res = await call('POST', '/api/registries/copy', {
      from: { registry: 'embedded', repository: 'apps/one', reference: 'v1' },
      to: { registry: guardedId, repository: 'copied/one', tag: 'latest' },
    });
    assert.equal(res.status, 200);
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status?: string; error?: string });
    assert.equal(lines.find((l) => l.error)?.error, undefined);
    assert.ok(lines.some((l) => l.status === 'Copied'));
    assert.equal(lines.at(-1)?.status, `Digest: ${sha256(manifest)}`);
    const direct = await fetch(`${guarded.url}/v2/copied/one/manifests/latest`);
    assert.equal(direct.status, 401, 'the registry itself wants a token');
    const through = await call('GET', `/registries/${guardedId}/v2/copied/one/manifests/latest`);
    assert.equal(through.status, 200);
    assert.equal(Buffer.from(await through.arrayBuffer()).toString(), manifest.toString());
    const catalog = await call('GET', `/registries/${guardedId}/v2/_catalog`);
    assert.deepEqual(await catalog.json(), { repositories: ['copied/one'] });
  });

  test('within one registry, blobs are mounted', async () => {
    const res = await call('POST', '/api/registries/copy', {
      from: { registry: guardedId, repository: 'copied/one', reference: 'latest' },
      to: { registry: guardedId, repository: 'copied/mounted', tag: 'v1' },
    });
    const text = await res.text();
    assert.match(text, /Mounted from copied\/one/);
    assert.doesNotMatch(text, /"error"/);
  });

  test('deleting a tag keeps the manifest and its other tags', async () => {
    assert.equal(
      (await call('POST', '/api/registries/embedded/untag', { repository: 'apps/one', tag: 'v1' })).status,
      204,
    );
    const tags = await call('GET', '/registries/embedded/v2/apps/one/tags/list');
    assert.deepEqual(await tags.json(), { name: 'apps/one', tags: ['v2'] });
    assert.equal((await call('GET', '/registries/embedded/v2/apps/one/manifests/v2')).status, 200);
    const gone = await call('POST', '/api/registries/embedded/untag', { repository: 'apps/one', tag: 'v1' });
    assert.equal(gone.status, 404);
  });

  test('a manifest is deleted by digest through the proxy; writes other than DELETE are not passed', async () => {
    const del = await call(
      'DELETE',
      `/registries/${guardedId}/v2/copied/mounted/manifests/${sha256(manifest)}`,
    );
    assert.equal(del.status, 202);
    const put = await call('PUT', `/registries/${guardedId}/v2/copied/mounted/manifests/x`, {});
    assert.equal(put.status, 405);
  });

  test('a basic-auth registry: refused with a wrong password, read with the right one', async () => {
    const spec = { name: 'basic', url: basic.url, auth: 'basic', username: 'alice' };
    assert.equal((await call('POST', '/api/registries', { ...spec, password: 'nope' })).status, 403);
    const res = await call('POST', '/api/registries', { ...spec, password: 's3cret-pass' });
    assert.equal(res.status, 201);
    const { id } = (await res.json()) as RegistrySummary;
    const catalog = await call('GET', `/registries/${id}/v2/_catalog`);
    assert.equal(catalog.status, 200);
    assert.deepEqual(await catalog.json(), { repositories: [] });
  });
});

describe('a registry that sends other bytes than its manifest digest names', () => {
  test('copying from it is refused, naming both digests, and nothing is written', async () => {
    const named = JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: sha256(Buffer.from('{}')),
        size: 2,
      },
      layers: [],
    });
    const sent = Buffer.from(named.replace('"layers":[]', '"layers":[],"annotations":{"x":"tampered"}'));
    const namedDigest = sha256(Buffer.from(named));
    // A registry of its own: /v2/ answers, and every manifest is the tampered body, by tag under
    // the digest of the original (Docker-Content-Digest), by digest whatever was asked.
    const tampering = createServer((req, res) => {
      if (req.url === '/v2/') return res.end('{}');
      if (req.url?.startsWith('/v2/bad/one/manifests/'))
        return res
          .writeHead(200, {
            'content-type': 'application/vnd.oci.image.manifest.v1+json',
            'docker-content-digest': namedDigest,
          })
          .end(sent);
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[{"code":"NAME_UNKNOWN"}]}');
    });
    const port = await freePort();
    await new Promise<void>((resolve) => tampering.listen(port, '127.0.0.1', resolve));
    try {
      const added = await call('POST', '/api/registries', {
        name: 'tampering',
        url: `http://127.0.0.1:${port}`,
      });
      assert.equal(added.status, 201);
      const { id } = (await added.json()) as RegistrySummary;
      for (const reference of [namedDigest, 'v1']) {
        const res = await call('POST', '/api/registries/copy', {
          from: { registry: id, repository: 'bad/one', reference },
          to: { registry: 'embedded', repository: 'bad/copied', tag: 'v1' },
        });
        const last = JSON.parse((await res.text()).trim().split('\n').at(-1)!) as { error?: string };
        assert.equal(
          last.error,
          `manifest for 127.0.0.1:${port}/bad/one:${reference}: the registry sent a manifest whose digest is ${sha256(sent)}, not ${namedDigest}`,
        );
      }
      assert.equal((await call('GET', '/registries/embedded/v2/bad/copied/tags/list')).status, 404);
    } finally {
      await new Promise((resolve) => tampering.close(resolve));
    }
  });
});

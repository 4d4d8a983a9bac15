// GET /images/search and GET /distribution/{name}/json against registries on loopback: the
// embedded svc-registry and Distribution 2.8, anonymous and with basic auth; the docker CLI's
// `docker search`, and the distribution answer compared with Docker Engine 20.10's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DistributionInspect, ImageSearchResult } from '../../../api/image-types';
import { startRegistry, type RegistryProcess } from '../../../registry/testing/registry-process';
import {
  destroyDockerd,
  dockerdMissing,
  startDockerd,
  type DockerdPeer,
} from '../../../testing/dockerd-peer';
import { useDockerCli } from '../../../testing/docker-cli';
import { expectStatus, useEngine } from '../../../testing/containers-fixture';
import { startDistribution, type Distribution } from '../../../testing/distribution';

const bobAuth = Buffer.from(JSON.stringify({ username: 'bob', password: 'pw' })).toString('base64url');

describe('registry lookups without a pull', () => {
  const suite = useEngine();
  const cli = useDockerCli(suite);
  let distribution: Distribution;
  let secured: Distribution;
  let embedded: RegistryProcess;
  const pushed = new Map<string, string>();

  before(async () => {
    [distribution, secured, embedded] = await Promise.all([
      startDistribution(),
      startDistribution({ basic: { username: 'bob', password: 'pw' } }),
      startRegistry(),
    ]);
    for (const host of [distribution.host, embedded.host]) {
      for (const name of [`${host}/team/busybox:1`, `${host}/other:1`]) {
        await cli.docker('tag', 'busybox:latest', name);
        const out = await cli.docker('push', name);
        pushed.set(name, /digest: (sha256:[a-f0-9]{64})/.exec(out)![1]);
      }
    }
    const name = `${secured.host}/private/busybox:1`;
    await cli.docker('tag', 'busybox:latest', name);
    const res = await suite().svcd.request('POST', `/images/${name.replace(/:1$/, '')}/push?tag=1`, {
      headers: { 'X-Registry-Auth': bobAuth },
    });
    assert.doesNotMatch(res.text(), /"error"/);
  });

  after(async () => {
    await Promise.all([distribution?.stop(), secured?.stop(), embedded?.stop()]);
  });

  const search = (term: string, extra = '', headers: Record<string, string> = {}) =>
    suite().svcd.request('GET', `/v1.41/images/search?term=${encodeURIComponent(term)}${extra}`, { headers });

  test('search by a qualified term finds the pushed repositories, in both registries', async () => {
    for (const host of [distribution.host, embedded.host]) {
      const found = expectStatus(await search(`${host}/busy`), 200).json<ImageSearchResult[]>();
      assert.deepEqual(found, [
        {
          name: `${host}/team/busybox`,
          description: '',
          star_count: 0,
          is_official: false,
          is_automated: false,
          is_trusted: false,
        },
      ]);
      const all = expectStatus(await search(`${host}/`, '&limit=1'), 200).json<ImageSearchResult[]>();
      assert.equal(all.length, 1, 'limit');
      const none = expectStatus(await search(`${host}/o`, '&filters={"is-official":["true"]}'), 200).json<
        unknown[]
      >();
      assert.deepEqual(none, []);
    }
    const cliOut = await cli.docker(
      'search',
      '--format',
      '{{.Name}} {{.StarCount}}',
      `${embedded.host}/other`,
    );
    assert.equal(cliOut, `${embedded.host}/other 0`);
  });

  test('search with credentials; without them the registry says 401', async () => {
    assert.equal((await search(`${secured.host}/private`)).status, 401);
    const found = expectStatus(
      await search(`${secured.host}/private`, '', { 'X-Registry-Auth': bobAuth }),
      200,
    ).json<ImageSearchResult[]>();
    assert.deepEqual(
      found.map((r) => r.name),
      [`${secured.host}/private/busybox`],
    );
  });

  test('bad search input is a 400 naming it, and nothing is contacted for it', async () => {
    assert.match(
      expectStatus(await search(`${distribution.host}/x`, '&limit=0'), 400).text(),
      /Limit 0 is outside/,
    );
    assert.match(
      expectStatus(await search(`${distribution.host}/x`, '&filters={"color":["red"]}'), 400).text(),
      /Invalid filter 'color'/,
    );
    assert.match(
      expectStatus(await suite().svcd.request('GET', '/images/search'), 400).text(),
      /term is required/,
    );
  });

  test('distribution inspect: the digest docker push printed, and the platforms of an index', async () => {
    for (const host of [distribution.host, embedded.host]) {
      const name = `${host}/team/busybox:1`;
      const answer = expectStatus(
        await suite().svcd.request('GET', `/v1.41/distribution/${name}/json`),
        200,
      ).json<DistributionInspect>();
      assert.equal(answer.Descriptor.digest, pushed.get(name));
      assert.equal(answer.Descriptor.mediaType, 'application/vnd.docker.distribution.manifest.v2+json');
      assert.deepEqual(answer.Platforms, [{ architecture: 'amd64', os: 'linux' }]);

      // An index of that manifest for two platforms.
      const manifest = await fetch(`http://${host}/v2/team/busybox/manifests/1`, {
        headers: { Accept: answer.Descriptor.mediaType },
      }).then(async (r) => Buffer.from(await r.arrayBuffer()));
      const entry = (platform: object) => ({ ...answer.Descriptor, size: manifest.length, platform });
      const index = JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.docker.distribution.manifest.list.v2+json',
        manifests: [
          entry({ architecture: 'amd64', os: 'linux' }),
          entry({ architecture: 'arm64', os: 'linux', variant: 'v8' }),
        ],
      });
      const put = await fetch(`http://${host}/v2/team/busybox/manifests/multi`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/vnd.docker.distribution.manifest.list.v2+json' },
        body: index,
      });
      assert.equal(put.status, 201, await put.text());
      const multi = expectStatus(
        await suite().svcd.request('GET', `/v1.41/distribution/${host}/team/busybox:multi/json`),
        200,
      ).json<DistributionInspect>();
      assert.equal(multi.Descriptor.digest, put.headers.get('docker-content-digest'));
      assert.deepEqual(multi.Platforms, [
        { architecture: 'amd64', os: 'linux' },
        { architecture: 'arm64', os: 'linux', variant: 'v8' },
      ]);
    }
    const missing = await suite().svcd.request(
      'GET',
      `/v1.41/distribution/${distribution.host}/team/busybox:nope/json`,
    );
    assert.equal(missing.status, 404, missing.text());
    const unauthorized = await suite().svcd.request(
      'GET',
      `/v1.41/distribution/${secured.host}/private/busybox:1/json`,
    );
    assert.equal(unauthorized.status, 401);
    const authorized = await suite().svcd.request(
      'GET',
      `/v1.41/distribution/${secured.host}/private/busybox:1/json`,
      {
        headers: { 'X-Registry-Auth': bobAuth },
      },
    );
    assert.equal(authorized.status, 200, authorized.text());
    assert.equal(
      (await suite().svcd.request('GET', `/v1.29/distribution/${secured.host}/x:1/json`)).status,
      404,
    );
  });

  describe('beside Docker Engine 20.10', { skip: dockerdMissing() }, () => {
    let dockerd: DockerdPeer;
    before(async () => {
      dockerd = await startDockerd();
    });
    after(() => destroyDockerd(dockerd));

    test('the same answer for the same image in the same registry', async () => {
      for (const name of [
        `${distribution.host}/team/busybox:1`,
        `${embedded.host}/team/busybox:multi`,
        `${embedded.host}/other:1`,
      ]) {
        const path = `/v1.41/distribution/${name}/json`;
        const ours = expectStatus(await suite().svcd.request('GET', path), 200).json();
        const theirs = expectStatus(await dockerd.request('GET', path), 200).json();
        assert.deepEqual(ours, theirs, name);
      }
    });
  });
});

// The image endpoints that need no registry, against a real svcd and containerd: import, list,
// inspect, history, tag, delete, prune, save and load, events, /info and /system/df.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { destroySvcd, startSvcd, type SvcdInstance } from '../../../testing/svcd-harness';
import { busyboxRootfsTar, importBusybox } from '../../../testing/busybox-image';
import { jsonMessages, streamError } from '../../../testing/json-messages';
import { layerTar } from '../../../engine/testing/test-image';
import type { ImageInspect, ImageSummary } from '../../../api/image-types';

let svcd: SvcdInstance;
let rootfs: Buffer;
let busyboxId: string;
let scratch: string;
const startedNano = BigInt(Date.now()) * 1_000_000n;

const diffId = (tar: Buffer) => `sha256:${createHash('sha256').update(tar).digest('hex')}`;

async function importTar(body: Buffer, query: Record<string, string | string[]> = {}) {
  const params = new URLSearchParams({ fromSrc: '-' });
  for (const [k, v] of Object.entries(query)) for (const value of [v].flat()) params.append(k, value);
  return svcd.request('POST', `/images/create?${params}`, {
    body,
    headers: { 'Content-Type': 'application/x-tar' },
  });
}

async function importId(body: Buffer, query: Record<string, string | string[]> = {}): Promise<string> {
  const res = await importTar(body, query);
  assert.equal(res.status, 200, res.text());
  assert.equal(streamError(res), undefined);
  const id = jsonMessages(res).at(-1)?.status ?? '';
  assert.match(id, /^sha256:[a-f0-9]{64}$/);
  return id;
}

async function inspect(name: string): Promise<ImageInspect> {
  const res = await svcd.request('GET', `/images/${name}/json`);
  assert.equal(res.status, 200, res.text());
  return res.json<ImageInspect>();
}

async function list(query = ''): Promise<ImageSummary[]> {
  const res = await svcd.request('GET', `/images/json${query}`);
  assert.equal(res.status, 200, res.text());
  return res.json<ImageSummary[]>();
}

const filters = (f: Record<string, string[]>) => `filters=${encodeURIComponent(JSON.stringify(f))}`;

before(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'images-local-'));
  svcd = await startSvcd();
  rootfs = await busyboxRootfsTar();
  busyboxId = await importBusybox(svcd);
});

after(async () => {
  await destroySvcd(svcd);
  await rm(scratch, { recursive: true, force: true });
});

describe('import (POST /images/create?fromSrc)', () => {
  test('the fixture gives a named image with the rootfs as its only layer', async () => {
    const image = await inspect('busybox');
    assert.equal(image.Id, busyboxId);
    assert.deepEqual(image.RepoTags, ['busybox:latest']);
    assert.deepEqual(image.RootFS.Layers, [diffId(rootfs)]);
    assert.deepEqual(image.Config.Cmd, ['sh']);
    assert.equal(image.Os, 'linux');
    assert.equal(image.Architecture, 'amd64');
    assert.ok(image.Size > 1_000_000, `size ${image.Size}`);
  });

  test('changes and message set the config; progress then the ID are streamed', async () => {
    const res = await importTar(rootfs, {
      repo: 'changed',
      tag: 'v1',
      message: 'made by a test',
      changes: [
        'CMD echo hi',
        'ENTRYPOINT ["/bin/sh", "-c"]',
        'ENV A=1 B="two words"',
        'EXPOSE 80 53/udp',
        'LABEL com.example.kind=test other=x',
        'USER svc',
        'VOLUME /data',
        'WORKDIR /tmp',
      ],
    });
    assert.equal(res.status, 200);
    const messages = jsonMessages(res);
    assert.ok(
      messages.some((m) => m.status === 'Importing'),
      res.text(),
    );
    const image = await inspect('changed:v1');
    assert.equal(messages.at(-1)?.status, image.Id);
    assert.deepEqual(image.Config.Cmd, ['/bin/sh', '-c', 'echo hi']);
    assert.deepEqual(image.Config.Entrypoint, ['/bin/sh', '-c']);
    assert.deepEqual(image.Config.Env, ['A=1', 'B=two words']);
    assert.deepEqual(image.Config.ExposedPorts, { '80/tcp': {}, '53/udp': {} });
    assert.deepEqual(image.Config.Labels, { 'com.example.kind': 'test', other: 'x' });
    assert.equal(image.Config.User, 'svc');
    assert.deepEqual(image.Config.Volumes, { '/data': {} });
    assert.equal(image.Config.WorkingDir, '/tmp');
    assert.equal(image.Comment, 'made by a test');
  });

  test('gzip, bzip2 and xz archives give the same layer as the plain tar', async () => {
    const compressed = {
      gzip: gzipSync(rootfs),
      bzip2: execFileSync('bzip2', ['-c'], { input: rootfs, maxBuffer: 64 << 20 }),
      xz: execFileSync('xz', ['-c', '-0'], { input: rootfs, maxBuffer: 64 << 20 }),
    };
    for (const [kind, body] of Object.entries(compressed)) {
      await importId(body, { repo: `compressed-${kind}` });
      const image = await inspect(`compressed-${kind}`);
      assert.deepEqual(image.RootFS.Layers, [diffId(rootfs)], kind);
    }
  });

  test('from a URL', async () => {
    const server: Server = createServer((_req, res) => res.end(gzipSync(rootfs)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const res = await svcd.request(
        'POST',
        `/images/create?fromSrc=${encodeURIComponent(`http://127.0.0.1:${port}/rootfs.tgz`)}&repo=fromurl`,
      );
      assert.equal(res.status, 200);
      assert.equal(streamError(res), undefined, res.text());
      assert.ok(jsonMessages(res).some((m) => m.status?.startsWith('Downloading from http://127.0.0.1')));
      assert.equal((await inspect('fromurl')).Comment, `Imported from http://127.0.0.1:${port}/rootfs.tgz`);
    } finally {
      server.close();
    }
  });

  test('errors: nothing to create from, a bad change, a bad repository name', async () => {
    assert.equal((await svcd.request('POST', '/images/create')).status, 400);
    const bad = await importTar(rootfs, { repo: 'x', changes: 'RUN echo no' });
    assert.equal(bad.status, 400);
    assert.match(bad.json<{ message: string }>().message, /RUN is not a valid change command/);
    assert.equal((await importTar(rootfs, { repo: 'UPPER' })).status, 400);
  });
});

describe('list, inspect, history', () => {
  test('inspect by name, name:tag, full ID, bare hex ID and short ID; 404 otherwise', async () => {
    const hex = busyboxId.slice(7);
    for (const name of [
      'busybox',
      'busybox:latest',
      'docker.io/library/busybox:latest',
      busyboxId,
      hex,
      hex.slice(0, 12),
    ]) {
      assert.equal((await inspect(name)).Id, busyboxId, name);
    }
    const missing = await svcd.request('GET', '/images/nosuch:1/json');
    assert.equal(missing.status, 404);
    assert.equal(missing.json<{ message: string }>().message, 'No such image: nosuch:1');
  });

  test('history lists the import with its comment', async () => {
    const res = await svcd.request('GET', '/images/busybox/history');
    assert.equal(res.status, 200);
    const items = res.json<{ Id: string; Tags: string[]; Size: number; Comment: string }[]>();
    assert.equal(items.length, 1);
    assert.equal(items[0].Id, busyboxId);
    assert.deepEqual(items[0].Tags, ['busybox:latest']);
    assert.equal(items[0].Comment, 'Imported from -');
    assert.ok(items[0].Size > 0);
    assert.equal((await svcd.request('GET', '/images/nosuch/history')).status, 404);
  });

  test('filters: label, reference, dangling, before/since; RepoDigests always present', async () => {
    const labelled = await list(`?${filters({ label: ['com.example.kind=test'] })}`);
    assert.deepEqual(
      labelled.map((i) => i.RepoTags),
      [['changed:v1']],
    );
    const refs = await list(`?${filters({ reference: ['compressed-*'] })}`);
    assert.equal(refs.length, 3);
    const danglingId = await importId(await layerTar({ 'only-here': 'dangling' }));
    const dangling = await list(`?${filters({ dangling: ['true'] })}`);
    assert.deepEqual(
      dangling.map((i) => i.Id),
      [danglingId],
    );
    assert.deepEqual(dangling[0].RepoTags, ['<none>:<none>']);
    assert.ok(!(await list(`?${filters({ dangling: ['false'] })}`)).some((i) => i.Id === danglingId));
    const before = await list(`?${filters({ before: ['changed:v1'] })}`);
    assert.ok(before.some((i) => i.Id === busyboxId));
    assert.ok(!before.some((i) => i.RepoTags?.includes('changed:v1')));
    const since = await list(`?${filters({ since: ['busybox'] })}`);
    assert.ok(
      since.some((i) => i.RepoTags?.includes('changed:v1')) && !since.some((i) => i.Id === busyboxId),
    );
    assert.deepEqual((await list()).find((i) => i.Id === busyboxId)?.RepoDigests, []);
    assert.deepEqual(dangling[0].RepoDigests, ['<none>@<none>']);
    assert.equal((await svcd.request('GET', `/images/json?${filters({ bogus: ['1'] })}`)).status, 400);
    assert.equal((await svcd.request('DELETE', `/images/${danglingId}`)).status, 200);
  });

  test('the singular filter works up to API 1.40 only', async () => {
    const old = await svcd.request('GET', '/v1.40/images/json?filter=busybox');
    assert.deepEqual(
      old.json<ImageSummary[]>().map((i) => i.Id),
      [busyboxId],
    );
    const current = await svcd.request('GET', '/v1.41/images/json?filter=busybox');
    assert.ok(current.json<ImageSummary[]>().length > 1);
  });
});

describe('tag and delete', () => {
  test('tag: 201, then the new name resolves; 400 for a bad name, 404 for a missing image', async () => {
    assert.equal(
      (await svcd.request('POST', '/images/busybox/tag?repo=example.com/team/bb&tag=1.0')).status,
      201,
    );
    assert.equal((await inspect('example.com/team/bb:1.0')).Id, busyboxId);
    assert.equal((await svcd.request('POST', '/images/busybox/tag?repo=mine')).status, 201);
    assert.deepEqual((await inspect('mine')).RepoTags.sort(), [
      'busybox:latest',
      'example.com/team/bb:1.0',
      'mine:latest',
    ]);
    assert.equal((await svcd.request('POST', '/images/busybox/tag?repo=Bad&tag=1')).status, 400);
    assert.equal((await svcd.request('POST', '/images/busybox/tag?repo=ok&tag=bad!tag')).status, 400);
    assert.equal((await svcd.request('POST', '/images/nosuch/tag?repo=x')).status, 404);
  });

  test('delete by name only untags while other names remain; by ID it needs force across repositories', async () => {
    const untag = await svcd.request('DELETE', '/images/mine');
    assert.equal(untag.status, 200);
    assert.deepEqual(untag.json(), [{ Untagged: 'mine:latest' }]);
    const conflict = await svcd.request('DELETE', `/images/${busyboxId}`);
    assert.equal(conflict.status, 409);
    assert.match(
      conflict.json<{ message: string }>().message,
      /must be forced\) - image is referenced in multiple repositories/,
    );
    const untagged = await svcd.request('DELETE', '/images/example.com/team/bb:1.0');
    assert.deepEqual(untagged.json(), [{ Untagged: 'example.com/team/bb:1.0' }]);
    assert.equal((await svcd.request('DELETE', '/images/nosuch')).status, 404);
  });

  test('deleting an image keeps the layers other images share, and removes its own', async () => {
    const own = await layerTar({ 'own-file': 'x' });
    const a = await importId(own, { repo: 'share-a' });
    const b = await importId(own, { repo: 'share-b', changes: 'CMD ["other"]' });
    assert.notEqual(a, b);
    const first = await svcd.request('DELETE', '/images/share-a');
    assert.deepEqual(first.json(), [{ Untagged: 'share-a:latest' }, { Deleted: a }]);
    assert.deepEqual((await inspect('share-b')).RootFS.Layers, [diffId(own)]);
    const second = await svcd.request('DELETE', '/images/share-b');
    assert.deepEqual(second.json(), [
      { Untagged: 'share-b:latest' },
      { Deleted: b },
      { Deleted: diffId(own) },
    ]);
    assert.equal((await svcd.request('GET', `/images/${b}/json`)).status, 404);
  });

  test('prune removes dangling images only, or every unused one matching labels', async () => {
    const dangling = await importId(await layerTar({ 'prune-me': 'x'.repeat(10000) }));
    const labelled = await importId(await layerTar({ labelled: 'y' }), {
      repo: 'prune-label',
      changes: 'LABEL prune=yes',
    });
    const res = await svcd.request('POST', '/images/prune');
    assert.equal(res.status, 200);
    const body = res.json<{ ImagesDeleted: Record<string, string>[]; SpaceReclaimed: number }>();
    assert.ok(body.ImagesDeleted.some((d) => d.Deleted === dangling));
    assert.ok(!body.ImagesDeleted.some((d) => d.Deleted === labelled));
    assert.ok(body.SpaceReclaimed >= 10000, `reclaimed ${body.SpaceReclaimed}`);
    const all = await svcd.request(
      'POST',
      `/images/prune?${filters({ dangling: ['false'], label: ['prune=yes'] })}`,
    );
    const deleted = all.json<{ ImagesDeleted: Record<string, string>[] }>().ImagesDeleted;
    assert.deepEqual(deleted.slice(0, 2), [{ Untagged: 'prune-label:latest' }, { Deleted: labelled }]);
    assert.equal((await svcd.request('GET', '/images/busybox/json')).status, 200);
  });
});

describe('save and load', () => {
  test('docker-save archive with OCI layout; load it back, with progress or quietly', async () => {
    const saved = await svcd.request('GET', '/images/busybox/get');
    assert.equal(saved.status, 200);
    assert.equal(saved.headers['content-type'], 'application/x-tar');
    const dir = path.join(scratch, 'saved');
    await rm(dir, { recursive: true, force: true });
    execFileSync('mkdir', ['-p', dir]);
    execFileSync('tar', ['-x', '-C', dir], { input: saved.body });
    const entries = await readdir(dir);
    for (const f of ['manifest.json', 'index.json', 'oci-layout', 'repositories', 'blobs'])
      assert.ok(entries.includes(f), f);
    assert.equal((await svcd.request('DELETE', '/images/busybox')).status, 200);

    const loaded = await svcd.request('POST', '/images/load', {
      body: saved.body,
      headers: { 'Content-Type': 'application/x-tar' },
    });
    assert.equal(loaded.status, 200);
    const messages = jsonMessages(loaded);
    assert.ok(
      messages.some((m) => m.status === 'Loading layer'),
      loaded.text(),
    );
    assert.equal(messages.at(-1)?.stream, 'Loaded image: busybox:latest\n');
    assert.equal((await inspect('busybox')).Id, busyboxId);

    const quiet = await svcd.request('POST', '/images/load?quiet=1', { body: saved.body });
    assert.deepEqual(jsonMessages(quiet), [{ stream: 'Loaded image: busybox:latest\n' }]);
  });

  test('an OCI layout alone loads too; GET /images/get takes several names; 404 for unknown', async () => {
    const res = await svcd.request('GET', '/images/get?names=busybox&names=changed:v1');
    assert.equal(res.status, 200);
    const dir = path.join(scratch, 'oci');
    execFileSync('mkdir', ['-p', dir]);
    execFileSync('tar', ['-x', '-C', dir], { input: res.body });
    const manifest = JSON.parse(
      execFileSync('cat', [path.join(dir, 'manifest.json')], { encoding: 'utf8' }),
    ) as { RepoTags: string[] }[];
    assert.deepEqual(
      manifest
        .map((m) => m.RepoTags)
        .flat()
        .sort(),
      ['busybox:latest', 'changed:v1'],
    );
    const oci = execFileSync('tar', ['-c', '-C', dir, 'oci-layout', 'index.json', 'blobs'], {
      maxBuffer: 64 << 20,
    });
    assert.equal((await svcd.request('DELETE', '/images/changed:v1')).status, 200);
    const loaded = await svcd.request('POST', '/images/load?quiet=1', { body: oci });
    const lines = jsonMessages(loaded).map((m) => m.stream);
    assert.ok(lines.includes('Loaded image: changed:v1\n'), loaded.text());
    assert.deepEqual((await inspect('changed:v1')).Config.Cmd, ['/bin/sh', '-c', 'echo hi']);
    assert.equal((await svcd.request('GET', '/images/nosuch/get')).status, 404);
    // As dockerd: 200, and the failure is the stream's JSON error message.
    const garbage = await svcd.request('POST', '/images/load', { body: Buffer.from('not a tar at all') });
    assert.equal(garbage.status, 200, garbage.text());
    assert.match(streamError(garbage) ?? '', /archive/);
  });
});

describe('events and system', () => {
  test('image operations were published as events', async () => {
    const until = BigInt(Date.now()) * 1_000_000n + 1_000_000n;
    const res = await svcd.request(
      'GET',
      `/events?since=${startedNano / 1_000_000_000n}&until=${until / 1_000_000_000n + 1n}&${filters({ type: ['image'] })}`,
    );
    const actions = new Set(jsonMessages(res).map((e) => (e as { Action?: string }).Action));
    for (const action of ['import', 'tag', 'untag', 'delete', 'prune', 'save', 'load'])
      assert.ok(actions.has(action), action);
  });

  test('/info counts images and /system/df reports their sizes', async () => {
    const images = await list();
    const info = (await svcd.request('GET', '/info')).json<{ Images: number }>();
    assert.equal(info.Images, images.length);
    const df = (await svcd.request('GET', '/system/df')).json<{
      LayersSize: number;
      Images: { Id: string; Size: number; Containers: number }[];
    }>();
    assert.equal(df.Images.length, images.length);
    const busybox = df.Images.find((i) => i.Id === busyboxId);
    assert.ok(busybox && busybox.Size > 1_000_000 && busybox.Containers === 0);
    assert.ok(df.LayersSize >= busybox.Size);
  });
});

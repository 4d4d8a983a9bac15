import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { before, describe, test } from 'node:test';
import type { ContainerChange, ContainerPathStat } from '../../../api/container-summary-types';
import { readTar } from '../../../lib/tar/tar-reader';
import { tarOf } from '../../../testing/tar-of';
import { eventsSince } from '../../../testing/engine-client';
import { engineEvents } from '../../../testing/svcd-harness';
import { create, expectStatus, inspect, run, useEngine } from '../../../testing/containers-fixture';

async function names(archive: Buffer): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const { header, body } of readTar(Readable.from([archive]))) {
    out.set(header.name, header.type === 'file' ? (await buffer(body)).toString() : header.type);
  }
  return out;
}

describe('container filesystem endpoints', () => {
  const suite = useEngine();
  let id: string;
  before(async () => {
    id = await run(suite().svcd, {
      Cmd: [
        'sh',
        '-c',
        'echo new > /tmp/added && echo changed >> /etc/group && rm /etc/passwd && mkdir -p /srv/a && echo deep > /srv/a/b && ln -s /srv/a /tmp/link && sleep 300',
      ],
    });
    await new Promise((r) => setTimeout(r, 500));
  });

  const tarHeaders = { 'Content-Type': 'application/x-tar' };

  test('changes: Kind 0 modified, 1 added, 2 deleted; mount points stay out', async () => {
    const changes = expectStatus(await suite().svcd.request('GET', `/containers/${id}/changes`), 200).json<
      ContainerChange[]
    >();
    const kinds = Object.fromEntries(changes.map((c) => [c.Path, c.Kind]));
    assert.equal(kinds['/tmp/added'], 1);
    assert.equal(kinds['/etc/group'], 0);
    assert.equal(kinds['/etc/passwd'], 2);
    assert.equal(kinds['/srv/a/b'], 1);
    assert.equal(kinds['/etc/hosts'], undefined);
    assert.equal(kinds['/proc'], undefined);
    expectStatus(await suite().svcd.request('GET', '/containers/nope/changes'), 404);
  });

  test('export: the whole root filesystem as a tar', async () => {
    const res = expectStatus(await suite().svcd.request('GET', `/containers/${id}/export`), 200);
    const entries = await names(res.body);
    assert.equal(entries.get('tmp/added'), 'new\n');
    assert.equal(entries.get('bin/busybox') !== undefined, true);
    assert.equal(entries.has('etc/passwd'), false);
  });

  test('archive HEAD and GET: stat header (both names), files, directories, /. contents, symlinks', async () => {
    const { svcd } = suite();
    const head = expectStatus(await svcd.request('HEAD', `/containers/${id}/archive?path=/srv/a`), 200);
    const stat = JSON.parse(
      Buffer.from(head.headers['x-svc-container-path-stat'] as string, 'base64').toString(),
    ) as ContainerPathStat;
    assert.equal(head.headers['x-docker-container-path-stat'], head.headers['x-svc-container-path-stat']);
    assert.equal(stat.name, 'a');
    assert.ok(stat.mode >= 2 ** 31, 'directory bit');
    const link = JSON.parse(
      Buffer.from(
        (await svcd.request('HEAD', `/containers/${id}/archive?path=/tmp/link`)).headers[
          'x-svc-container-path-stat'
        ] as string,
        'base64',
      ).toString(),
    ) as ContainerPathStat;
    assert.equal(link.linkTarget, '/srv/a');
    const file = await names(
      expectStatus(await svcd.request('GET', `/containers/${id}/archive?path=/tmp/added`), 200).body,
    );
    assert.deepEqual([...file.keys()], ['added']);
    const dir = await names((await svcd.request('GET', `/containers/${id}/archive?path=/srv`)).body);
    assert.equal(dir.get('srv/a/b'), 'deep\n');
    const contents = await names((await svcd.request('GET', `/containers/${id}/archive?path=/srv/.`)).body);
    assert.equal(contents.get('./a/b') ?? contents.get('a/b'), 'deep\n');
    const viaLink = await names(
      (await svcd.request('GET', `/containers/${id}/archive?path=/tmp/link/`)).body,
    );
    assert.equal(viaLink.get('link/b'), 'deep\n');
    expectStatus(await svcd.request('GET', `/containers/${id}/archive?path=/nope`), 404);
    expectStatus(await svcd.request('GET', `/containers/${id}/archive?path=/tmp/added/`), 400);
    expectStatus(await svcd.request('GET', `/containers/${id}/archive`), 400);
  });

  test('archive GET of /etc/hostname, /etc/hosts and /etc/resolv.conf reads the files the container sees', async () => {
    const { svcd } = suite();
    const info = await inspect(svcd, id);
    const hostname = await names(
      expectStatus(await svcd.request('GET', `/containers/${id}/archive?path=/etc/hostname`), 200).body,
    );
    assert.deepEqual([...hostname], [['hostname', `${info.Config.Hostname}\n`]]);
    const hosts = await names((await svcd.request('GET', `/containers/${id}/archive?path=/etc/hosts`)).body);
    assert.match(hosts.get('hosts') ?? '', /127\.0\.0\.1\s+localhost/);
    const resolv = await names(
      (await svcd.request('GET', `/containers/${id}/archive?path=/etc/resolv.conf`)).body,
    );
    assert.ok(resolv.has('resolv.conf'));
  });

  test('archive PUT: extraction confined to the container, noOverwriteDirNonDir, 403 read-only', async () => {
    const { svcd } = suite();
    const body = await tarOf([
      [{ name: 'up/', type: 'directory' }],
      [{ name: 'up/f.txt' }, 'uploaded'],
      [{ name: '../../escape.txt' }, 'x'],
    ]);
    // `..` above the root is refused before anything is written.
    expectStatus(
      await svcd.request('PUT', `/containers/${id}/archive?path=/tmp`, { body, headers: tarHeaders }),
      400,
    );
    const good = await tarOf([
      [{ name: 'up/', type: 'directory' }],
      [{ name: 'up/f.txt' }, 'uploaded'],
      [{ name: 'evil', type: 'symlink', linkname: '/' }],
      [{ name: 'evil/etc/owned' }, 'x'],
    ]);
    expectStatus(
      await svcd.request('PUT', `/containers/${id}/archive?path=/tmp`, { body: good, headers: tarHeaders }),
      200,
    );
    const back = await names(
      (await svcd.request('GET', `/containers/${id}/archive?path=/tmp/up/f.txt`)).body,
    );
    assert.equal(back.get('f.txt'), 'uploaded');
    // The symlink to / was followed inside the container, never on the host.
    expectStatus(await svcd.request('HEAD', `/containers/${id}/archive?path=/etc/owned`), 200);
    const clash = await tarOf([[{ name: 'added', type: 'directory' }]]);
    expectStatus(
      await svcd.request('PUT', `/containers/${id}/archive?path=/tmp&noOverwriteDirNonDir=true`, {
        body: clash,
        headers: tarHeaders,
      }),
      400,
    );
    expectStatus(
      await svcd.request('PUT', `/containers/${id}/archive?path=/tmp/added`, {
        body: good,
        headers: tarHeaders,
      }),
      400,
    );
    expectStatus(
      await svcd.request('PUT', `/containers/${id}/archive?path=/nope`, { body: good, headers: tarHeaders }),
      404,
    );
    const ro = await create(svcd, { HostConfig: { ReadonlyRootfs: true } });
    expectStatus(
      await svcd.request('PUT', `/containers/${ro}/archive?path=/tmp`, { body: good, headers: tarHeaders }),
      403,
    );
    const roVolume = await create(svcd, { HostConfig: { Binds: ['rovol:/data:ro'] } });
    expectStatus(
      await svcd.request('PUT', `/containers/${roVolume}/archive?path=/data`, {
        body: good,
        headers: tarHeaders,
      }),
      403,
    );
  });

  test('copy (API 1.23 and before) returns a tar of the resource; gone from 1.24', async () => {
    const { svcd } = suite();
    const res = expectStatus(
      await svcd.request('POST', `/v1.23/containers/${id}/copy`, { body: { Resource: '/tmp/added' } }),
      200,
    );
    assert.equal((await names(res.body)).get('added'), 'new\n');
    assert.notEqual(
      (await svcd.request('POST', `/v1.24/containers/${id}/copy`, { body: { Resource: '/tmp/added' } }))
        .status,
      200,
    );
  });

  test('top lists the container processes with ps_args', async () => {
    const { svcd } = suite();
    const top = expectStatus(await svcd.request('GET', `/containers/${id}/top`), 200).json<{
      Titles: string[];
      Processes: string[][];
    }>();
    assert.ok(top.Titles.includes('PID'));
    assert.ok(top.Processes.some((p) => p.at(-1)?.includes('sleep 300')));
    const aux = expectStatus(await svcd.request('GET', `/containers/${id}/top?ps_args=aux`), 200).json<{
      Titles: string[];
    }>();
    assert.ok(aux.Titles.includes('%CPU'));
    const stopped = await create(svcd, {});
    expectStatus(await svcd.request('GET', `/containers/${stopped}/top`), 409);
  });

  test('commit: a new image with the layer and the changes; a container from it sees the files', async () => {
    const { svcd } = suite();
    const q = new URLSearchParams({
      container: id,
      repo: 'committed',
      tag: 'v1',
      comment: 'snap',
      author: 'me',
    });
    q.append('changes', 'ENV FOO=bar');
    q.append('changes', 'CMD ["cat", "/tmp/added"]');
    const since = await eventsSince();
    const res = expectStatus(await svcd.request('POST', `/commit?${q}`), 201);
    const imageId = res.json<{ Id: string }>().Id;
    assert.match(imageId, /^sha256:[0-9a-f]{64}$/);
    // As dockerd: paused while read, the new name announced as a tag, then the commit.
    const events = await engineEvents(svcd, since, { type: ['container', 'image'] });
    assert.deepEqual(
      events.map((e) => `${e.Type} ${e.Action}`),
      ['container pause', 'image tag', 'container commit', 'container unpause'],
    );
    assert.equal(events[1].Actor.Attributes.name, 'committed:v1');
    const image = expectStatus(await svcd.request('GET', '/images/committed:v1/json'), 200).json<{
      Config: { Env: string[]; Cmd: string[] };
      Author: string;
      Comment: string;
    }>();
    assert.ok(image.Config.Env.includes('FOO=bar'));
    assert.deepEqual(image.Config.Cmd, ['cat', '/tmp/added']);
    assert.equal(image.Author, 'me');
    assert.equal((await inspect(svcd, id)).State.Status, 'running');
    const child = await run(svcd, {
      Image: 'committed:v1',
      Cmd: ['sh', '-c', 'test "$(cat /tmp/added)" = new && test ! -e /etc/passwd && test "$FOO" = bar'],
    });
    assert.equal(
      (await svcd.request('POST', `/containers/${child}/wait`)).json<{ StatusCode: number }>().StatusCode,
      0,
    );
    expectStatus(await svcd.request('POST', '/commit?container=nope'), 404);

    // A container that changed nothing adds no layer, only history, as dockerd.
    const untouched = await create(svcd, {});
    expectStatus(await svcd.request('POST', `/commit?container=${untouched}&repo=same`), 201);
    type Layers = { RootFS: { Layers: string[] } };
    const base = expectStatus(await svcd.request('GET', '/images/busybox/json'), 200).json<Layers>();
    const copy = expectStatus(await svcd.request('GET', '/images/same/json'), 200).json<Layers>();
    assert.deepEqual(copy.RootFS.Layers, base.RootFS.Layers);
    type History = Array<{ Size: number }>;
    const before = expectStatus(await svcd.request('GET', '/images/busybox/history'), 200).json<History>();
    const after = expectStatus(await svcd.request('GET', '/images/same/history'), 200).json<History>();
    assert.equal(after.length, before.length + 1);
    assert.equal(after[0].Size, 0);
  });

  test('resize needs a tty container that runs', async () => {
    const { svcd } = suite();
    const tty = await run(svcd, { Tty: true, Cmd: ['sleep', '300'] });
    expectStatus(await svcd.request('POST', `/containers/${tty}/resize?h=40&w=100`), 200);
    expectStatus(await svcd.request('POST', `/containers/${await create(svcd, {})}/resize?h=40&w=100`), 409);
  });
});

// Images cross between svcd and a real Docker Engine 20.10 (a private dockerd on a temp root):
// `docker save` from one is loaded by `docker load` into the other, which names it the same, gives
// it the same ID and runs a container from it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { promisify } from 'node:util';
import { destroySvcd, startSvcd, type SvcdInstance } from '../../../testing/svcd-harness';
import {
  destroyDockerd,
  dockerdMissing,
  startDockerd,
  type DockerdPeer,
} from '../../../testing/dockerd-peer';
import type { EngineResponse, RequestOptions } from '../../../testing/engine-client';
import { busyboxRootfsTar, importBusybox } from '../../../testing/busybox-image';
import { jsonMessages, streamError } from '../../../testing/json-messages';
import { FrameParser, StdStream } from '../../streams/stdcopy';
import type { ImageInspect } from '../../../api/image-types';
import { readTar } from '../../../lib/tar/tar-reader';

const dockerCli = '/usr/local/bin/docker';

type Engine = { request(method: string, path: string, opts?: RequestOptions): Promise<EngineResponse> };

let svcd: SvcdInstance;
let dockerd: DockerdPeer;

function expectStatus(res: EngineResponse, status: number): EngineResponse {
  assert.equal(res.status, status, res.text());
  return res;
}

async function inspect(engine: Engine, name: string): Promise<ImageInspect> {
  return expectStatus(await engine.request('GET', `/images/${name}/json`), 200).json<ImageInspect>();
}

/** GET /images/get?names=… (docker save). */
async function save(engine: Engine, names: string[]): Promise<Buffer> {
  const query = new URLSearchParams(names.map((n): [string, string] => ['names', n]));
  const res = expectStatus(await engine.request('GET', `/images/get?${query}`), 200);
  assert.equal(res.headers['content-type'], 'application/x-tar');
  return res.body;
}

/** POST /images/load (docker load); returns the lines it prints (`Loaded image: …`). */
async function load(engine: Engine, archive: Buffer): Promise<string[]> {
  const res = expectStatus(
    await engine.request('POST', '/images/load', {
      body: archive,
      headers: { 'Content-Type': 'application/x-tar' },
    }),
    200,
  );
  assert.equal(streamError(res), undefined, res.text());
  return jsonMessages(res).flatMap((m) => (m.stream ? [m.stream.trim()] : []));
}

/** Creates and starts a container of `image` without a network and waits for it to exit. */
async function runToExit(
  engine: Engine,
  image: string,
  cmd: string[],
): Promise<{ id: string; code: number }> {
  const create = await engine.request('POST', '/containers/create', {
    body: { Image: image, Cmd: cmd, HostConfig: { NetworkMode: 'none' } },
  });
  const id = expectStatus(create, 201).json<{ Id: string }>().Id;
  expectStatus(await engine.request('POST', `/containers/${id}/start`), 204);
  const wait = expectStatus(await engine.request('POST', `/containers/${id}/wait`), 200);
  return { id, code: wait.json<{ StatusCode: number }>().StatusCode };
}

/** Runs `cmd` in a container of `image`; returns its exit code and output (stderr marked). */
async function run(engine: Engine, image: string, cmd: string[]): Promise<{ code: number; out: string }> {
  const { id, code } = await runToExit(engine, image, cmd);
  try {
    const logs = expectStatus(await engine.request('GET', `/containers/${id}/logs?stdout=1&stderr=1`), 200);
    const out = new FrameParser()
      .push(logs.body)
      .map((f) => (f.stream === StdStream.stderr ? `stderr: ${f.payload}` : f.payload.toString()))
      .join('');
    return { code, out };
  } finally {
    await engine.request('DELETE', `/containers/${id}?force=1`);
  }
}

/**
 * A layer made by `engine` itself on top of `base`: a file added and one deleted (a whiteout in
 * the layer tar), committed as `ref` with `cat /made-by` as its command; returns the image ID.
 */
async function commitChange(engine: Engine, base: string, ref: string, text: string): Promise<string> {
  const { id, code } = await runToExit(engine, base, [
    'sh',
    '-c',
    `echo ${text} > /made-by && rm /etc/group`,
  ]);
  try {
    assert.equal(code, 0);
    const [repo, tag] = ref.split(':');
    const query = new URLSearchParams({ container: id, repo, tag });
    const commit = await engine.request('POST', `/commit?${query}`, { body: { Cmd: ['cat', '/made-by'] } });
    return expectStatus(commit, 201).json<{ Id: string }>().Id;
  } finally {
    await engine.request('DELETE', `/containers/${id}?force=1`);
  }
}

/** What a container of an image made by commitChange shows. */
async function expectChange(engine: Engine, image: string, text: string): Promise<void> {
  assert.deepEqual(await run(engine, image, []), { code: 0, out: `${text}\n` });
  assert.deepEqual(await run(engine, image, ['sh', '-c', 'test -e /etc/group || echo group-gone']), {
    code: 0,
    out: 'group-gone\n',
  });
}

describe('images between svcd and Docker Engine 20.10', { skip: dockerdMissing() }, () => {
  before(async () => {
    [svcd, dockerd] = await Promise.all([startSvcd(), startDockerd()]);
  });

  after(async () => {
    await Promise.all([destroySvcd(svcd), destroyDockerd(dockerd)]);
  });

  // First in the file, so that a load is the first thing this svcd does with images.
  test('docker import and commit in dockerd, docker save from it, docker load into svcd, run there', async () => {
    const imported = await dockerd.request('POST', '/images/create?fromSrc=-&repo=dockerd-base&tag=1', {
      body: await busyboxRootfsTar(),
      headers: { 'Content-Type': 'application/x-tar' },
    });
    assert.equal(streamError(expectStatus(imported, 200)), undefined);
    const made = await commitChange(dockerd, 'dockerd-base:1', 'dockerd-made:1', 'from-dockerd');
    const theirs = await inspect(dockerd, 'dockerd-made:1');
    assert.equal(theirs.RootFS.Layers.length, 2);

    const loaded = await load(svcd, await save(dockerd, ['dockerd-made:1']));
    assert.deepEqual(loaded, ['Loaded image: dockerd-made:1']);
    const ours = await inspect(svcd, 'dockerd-made:1');
    assert.equal(ours.Id, made);
    assert.deepEqual(ours.RepoTags, ['dockerd-made:1']);
    assert.deepEqual(ours.RootFS, theirs.RootFS);
    await expectChange(svcd, 'dockerd-made:1', 'from-dockerd');

    // Saved by ID, the archive names nothing: the image loads untagged.
    expectStatus(await svcd.request('DELETE', '/images/dockerd-made:1'), 200);
    assert.deepEqual(await load(svcd, await save(dockerd, [made])), [`Loaded image ID: ${made}`]);
  });

  test('docker save from svcd, docker load into dockerd, run there', async () => {
    await importBusybox(svcd, 'svc-rt:1');
    const made = await commitChange(svcd, 'svc-rt:1', 'svc-rt:2', 'from-svcd');
    expectStatus(await svcd.request('POST', '/images/svc-rt:2/tag?repo=localhost:5000/svc/rt&tag=two'), 201);

    const names = ['svc-rt:1', 'svc-rt:2', 'localhost:5000/svc/rt:two'];
    const loaded = await load(dockerd, await save(svcd, names));
    assert.deepEqual(loaded.sort(), names.map((n) => `Loaded image: ${n}`).sort());
    for (const name of names) {
      const [ours, theirs] = await Promise.all([inspect(svcd, name), inspect(dockerd, name)]);
      assert.equal(theirs.Id, ours.Id, name);
      assert.deepEqual(theirs.RepoTags.sort(), ours.RepoTags.sort(), name);
      assert.deepEqual(theirs.RootFS, ours.RootFS, name);
      assert.deepEqual(theirs.Config.Cmd, ours.Config.Cmd, name);
    }
    assert.equal((await inspect(dockerd, 'svc-rt:2')).RootFS.Layers.length, 2);
    assert.deepEqual(await run(dockerd, 'svc-rt:1', ['echo', 'hi']), { code: 0, out: 'hi\n' });
    await expectChange(dockerd, 'localhost:5000/svc/rt:two', 'from-svcd');

    assert.deepEqual(await load(dockerd, await save(svcd, [made.slice(7, 19)])), [
      `Loaded image ID: ${made}`,
    ]);
  });

  test(
    'as a user types it: docker save from svcd piped into docker load of dockerd',
    {
      skip: !existsSync(dockerCli) && 'no docker CLI',
    },
    async () => {
      await importBusybox(svcd, 'cli-rt:1');
      const { stdout } = await promisify(execFile)('sh', [
        '-c',
        `${dockerCli} -H unix://${svcd.socket} save cli-rt:1 | ${dockerCli} -H unix://${dockerd.socket} load`,
      ]);
      assert.equal(stdout, 'Loaded image: cli-rt:1\n');
      assert.equal((await inspect(dockerd, 'cli-rt:1')).Id, (await inspect(svcd, 'cli-rt:1')).Id);
    },
  );

  test('docker save writes each config as <hex>.json at the top, as dockerd does, for old loaders', async () => {
    await importBusybox(svcd, 'legacy-config:1');
    await importBusybox(dockerd, 'legacy-config:1');
    for (const engine of [svcd, dockerd]) {
      const { Id } = await inspect(engine, 'legacy-config:1');
      const files = new Map<string, Buffer>();
      for await (const entry of readTar(Readable.from([await save(engine, ['legacy-config:1'])])))
        files.set(entry.header.name, await buffer(entry.body));
      const topConfigs = [...files.keys()].filter((n) => /^[0-9a-f]{64}\.json$/.test(n));
      assert.deepEqual(topConfigs, [`${Id.slice(7)}.json`]);
      assert.equal(`sha256:${createHash('sha256').update(files.get(topConfigs[0])!).digest('hex')}`, Id);
      assert.ok(files.has('manifest.json') && files.has('repositories'));
    }
  });

  test("a committed image's Parent is its source image; history and the image list agree", async () => {
    await importBusybox(svcd, 'parent-base:1');
    const imported = await dockerd.request('POST', '/images/create?fromSrc=-&repo=parent-base&tag=1', {
      body: await busyboxRootfsTar(),
      headers: { 'Content-Type': 'application/x-tar' },
    });
    assert.equal(streamError(expectStatus(imported, 200)), undefined);
    const seen = [];
    for (const engine of [svcd, dockerd]) {
      const base = (await inspect(engine, 'parent-base:1')).Id;
      const made = await commitChange(engine, 'parent-base:1', 'parent-child:1', 'child');
      const child = await inspect(engine, 'parent-child:1');
      const history = expectStatus(await engine.request('GET', '/images/parent-child:1/history'), 200).json<
        Array<{ Id: string; Tags: string[] | null }>
      >();
      const list = expectStatus(await engine.request('GET', '/images/json'), 200).json<
        Array<{ Id: string; ParentId: string }>
      >();
      const name = (id: string) => (id === made ? 'child' : id === base ? 'base' : id);
      seen.push({
        parent: name(child.Parent),
        history: history.map((h) => [name(h.Id), h.Tags]),
        listed: name(list.find((i) => i.Id === made)?.ParentId ?? ''),
        baseParent: (await inspect(engine, 'parent-base:1')).Parent,
      });
    }
    assert.deepEqual(seen[0], {
      parent: 'base',
      history: [
        ['child', ['parent-child:1']],
        ['base', ['parent-base:1']],
      ],
      listed: 'base',
      baseParent: '',
    });
    assert.deepEqual(seen[0], seen[1]);
  });

  test('a load of something that is not an archive: 200, the error a JSON message in the stream', async () => {
    for (const engine of [svcd, dockerd]) {
      for (const path of ['/images/load', '/images/load?quiet=1']) {
        const res = expectStatus(
          await engine.request('POST', path, {
            body: Buffer.from('not a tar at all'),
            headers: { 'Content-Type': 'application/x-tar' },
          }),
          200,
        );
        assert.equal(res.headers['content-type'], 'application/json');
        const messages = jsonMessages(res);
        assert.equal(messages.length, 1, res.text());
        const m = messages[0] as { error?: string; errorDetail?: { message?: string } };
        assert.ok(m.error, res.text());
        assert.equal(m.errorDetail?.message, m.error);
      }
    }
  });

  test('a load that takes a tag from another image says so, as dockerd does', async () => {
    await importBusybox(svcd, 'moved:1');
    const before = await save(svcd, ['moved:1']);
    const old = (await inspect(svcd, 'moved:1')).Id;
    await importBusybox(svcd, 'moved:1');
    const after = await save(svcd, ['moved:1']);
    const id = (await inspect(svcd, 'moved:1')).Id;
    assert.notEqual(id, old);
    await load(dockerd, before);
    expectStatus(await svcd.request('POST', `/images/${old}/tag?repo=moved&tag=1`), 201);
    const expected = [
      `The image moved:1 already exists, renaming the old one with ID ${old} to empty string`,
      'Loaded image: moved:1',
    ];
    assert.deepEqual(await load(dockerd, after), expected);
    assert.deepEqual(await load(svcd, after), expected);
    assert.equal((await inspect(dockerd, 'moved:1')).Id, id);
  });

  // Last: it prunes every unused image of both engines.
  test(
    'docker image prune -a after a container ran the image and went: the reclaimed space is its layers, as dockerd says',
    { skip: !existsSync(dockerCli) && 'no docker CLI' },
    async () => {
      const decimal: Record<string, number> = { B: 1, kB: 1e3, MB: 1e6, GB: 1e9 };
      for (const engine of [svcd, dockerd]) {
        await importBusybox(engine, 'pruned-after-run:1');
        const { Size } = await inspect(engine, 'pruned-after-run:1');
        assert.ok(Size > 0);
        const cli = (args: string) =>
          promisify(execFile)('sh', ['-c', `${dockerCli} -H unix://${engine.socket} ${args}`]);
        await cli('run --name pruned-after-run --network none pruned-after-run:1 true');
        await cli('rm pruned-after-run');
        const { stdout } = await cli('image prune -a -f');
        assert.match(stdout, /untagged: pruned-after-run:1/, stdout);
        const total = /Total reclaimed space: ([\d.]+)(B|kB|MB|GB)\n/.exec(stdout);
        assert.ok(total, stdout);
        // The CLI prints four significant digits: the image's own size, give or take that.
        const reclaimed = Number(total[1]) * decimal[total[2]];
        assert.ok(reclaimed >= Size * 0.999, `${engine === svcd ? 'svcd' : 'dockerd'}: ${stdout} of ${Size}`);
      }
    },
  );
});

// The volumes API on a real svcd: the local driver's volumes made, listed, filtered, used by
// containers, kept across restarts and crashes, removed and pruned as dockerd does.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, test } from 'node:test';
import type { Volume, VolumeListResponse, VolumePruneResponse } from '../../../api/volume-types';
import type { ContainerInspect } from '../../../api/container-summary-types';
import { engineEvents } from '../../../testing/svcd-harness';
import { eventsSince } from '../../../testing/engine-client';
import { tarOf } from '../../../testing/tar-of';
import { readTar } from '../../../lib/tar/tar-reader';
import {
  create,
  eventually,
  expectStatus,
  inspect,
  run,
  useEngine,
} from '../../../testing/containers-fixture';

/** Runs `cmd` in a new busybox container to its exit and returns its output (json-file logs). */
async function output(
  svcd: ReturnType<ReturnType<typeof useEngine>>['svcd'],
  body: Record<string, unknown>,
): Promise<string> {
  const id = await run(svcd, body);
  expectStatus(await svcd.request('POST', `/containers/${id}/wait`), 200, 'wait');
  const logs = await svcd.request('GET', `/containers/${id}/logs?stdout=1&stderr=1`);
  // Multiplexed frames: 8-byte headers before each chunk.
  const raw = logs.body;
  let text = '';
  for (let at = 0; at + 8 <= raw.length;) {
    const size = raw.readUInt32BE(at + 4);
    text += raw.subarray(at + 8, at + 8 + size).toString();
    at += 8 + size;
  }
  return text;
}

describe('volumes API', () => {
  const engine = useEngine();

  test('create, inspect, list with filters, the same name again, remove', async () => {
    const { svcd } = engine();
    const created = expectStatus(
      await svcd.request('POST', '/volumes/create', {
        body: { Name: 'data1', Labels: { app: 'web', tier: 'db' } },
      }),
      201,
    ).json<Volume>();
    assert.equal(created.Name, 'data1');
    assert.equal(created.Driver, 'local');
    assert.equal(created.Scope, 'local');
    assert.deepEqual(created.Labels, { app: 'web', tier: 'db' });
    assert.deepEqual(created.Options, {});
    assert.match(created.CreatedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(created.Mountpoint, join(svcd.dataRoot, 'volumes', 'data1', '_data'));
    // The same name again: 201 with the volume that exists, its labels kept.
    const again = expectStatus(
      await svcd.request('POST', '/volumes/create', { body: { Name: 'data1', Labels: { other: '1' } } }),
      201,
    ).json<Volume>();
    assert.deepEqual(again, created);
    const anon = expectStatus(
      await svcd.request('POST', '/volumes/create', { body: {} }),
      201,
    ).json<Volume>();
    assert.match(anon.Name, /^[0-9a-f]{64}$/);
    assert.deepEqual(expectStatus(await svcd.request('GET', '/volumes/data1'), 200).json<Volume>(), created);

    const names = async (filters: Record<string, string[]>) =>
      expectStatus(
        await svcd.request('GET', `/volumes?filters=${encodeURIComponent(JSON.stringify(filters))}`),
        200,
      )
        .json<VolumeListResponse>()
        .Volumes.map((v) => v.Name)
        .sort();
    assert.deepEqual(await names({ name: ['ata'] }), ['data1']);
    assert.deepEqual(await names({ label: ['app'] }), ['data1']);
    assert.deepEqual(await names({ label: ['app=web'] }), ['data1']);
    assert.deepEqual(await names({ label: ['app=db'] }), []);
    assert.deepEqual(await names({ driver: ['local'] }), [anon.Name, 'data1'].sort());
    const user = await create(svcd, { Cmd: ['true'], HostConfig: { Binds: ['data1:/data'] } });
    assert.deepEqual(await names({ dangling: ['true'] }), [anon.Name]);
    assert.deepEqual(await names({ dangling: ['false'] }), ['data1']);
    expectStatus(await svcd.request('GET', '/volumes?filters={"bogus":["1"]}'), 400);

    // In use by a container that never ran: 409 naming it, force or not.
    for (const force of ['0', '1']) {
      const busy = expectStatus(await svcd.request('DELETE', `/volumes/data1?force=${force}`), 409);
      assert.match(busy.json<{ message: string }>().message, new RegExp(`volume is in use - \\[${user}\\]`));
    }
    expectStatus(await svcd.request('DELETE', `/containers/${user}`), 204);
    expectStatus(await svcd.request('DELETE', '/volumes/data1'), 204);
    expectStatus(await svcd.request('GET', '/volumes/data1'), 404);
    expectStatus(await svcd.request('DELETE', '/volumes/data1'), 404);
    // As `docker volume rm -f`: a volume that is not there is no error.
    expectStatus(await svcd.request('DELETE', '/volumes/data1?force=1'), 204);
    expectStatus(await svcd.request('DELETE', `/volumes/${anon.Name}`), 204);
  });

  test('bad requests are 4xx naming the problem', async () => {
    const { svcd } = engine();
    const message = async (body: unknown, status: number) =>
      expectStatus(await svcd.request('POST', '/volumes/create', { body }), status).json<{
        message: string;
      }>().message;
    assert.match(await message({ Name: 'a/b' }, 400), /includes invalid characters for a local volume name/);
    assert.match(await message({ Name: 'xx', Driver: 'nfs-plugin' }, 404), /plugin "nfs-plugin" not found/);
    assert.match(
      await message({ Name: 'xx', DriverOpts: { colour: 'red' } }, 400),
      /invalid option: "colour"/,
    );
    assert.match(
      await message({ Name: 'xx', DriverOpts: { type: 'tmpfs' } }, 400),
      /missing required option: "device"/,
    );
    assert.match(await message({ Name: 'xx', Labels: { a: 1 } }, 400), /Labels must be an object of strings/);
    assert.match(await message({ Name: 5 }, 400), /Name must be a string/);
    expectStatus(await svcd.request('GET', '/volumes/xx'), 404);
    const res = await svcd.request('POST', '/containers/create', {
      body: {
        Image: 'busybox',
        HostConfig: {
          Mounts: [
            {
              Type: 'volume',
              Source: 'vv',
              Target: '/v',
              VolumeOptions: { DriverConfig: { Name: 'flocker' } },
            },
          ],
        },
      },
    });
    assert.match(expectStatus(res, 404).json<{ message: string }>().message, /plugin "flocker" not found/);
  });

  test('a named volume carries data from one container to the next, across a restart and kill -9 of svcd', async () => {
    const { svcd } = engine();
    assert.equal(
      await output(svcd, {
        Cmd: ['sh', '-c', 'echo kept > /data/f && cat /data/f'],
        HostConfig: { Binds: ['keep:/data'] },
      }),
      'kept\n',
    );
    await svcd.stop();
    await svcd.start();
    assert.equal(
      await output(svcd, { Cmd: ['cat', '/data/f'], HostConfig: { Binds: ['keep:/data:ro'] } }),
      'kept\n',
    );
    await output(svcd, {
      Cmd: ['sh', '-c', 'echo more >> /data/f'],
      HostConfig: { Mounts: [{ Type: 'volume', Source: 'keep', Target: '/data' }] },
    });
    await svcd.kill9();
    await svcd.start();
    assert.equal(
      await output(svcd, { Cmd: ['cat', '/data/f'], HostConfig: { Binds: ['keep:/data'] } }),
      'kept\nmore\n',
    );
  });

  test('a new volume is filled from the image unless nocopy; VolumesFrom shares it', async () => {
    const { svcd } = engine();
    assert.match(await output(svcd, { Cmd: ['ls', '/etc'], HostConfig: { Binds: ['etcv:/etc'] } }), /passwd/);
    assert.doesNotMatch(
      await output(svcd, { Cmd: ['ls', '/etc'], HostConfig: { Binds: ['etcv2:/etc:nocopy'] } }),
      /passwd/,
    );
    const source = await create(svcd, { Cmd: ['true'], Volumes: { '/shared': {} } }, 'vsource');
    await output(svcd, {
      Cmd: ['sh', '-c', 'echo hi > /shared/x'],
      HostConfig: { VolumesFrom: ['vsource'] },
    });
    assert.equal(
      await output(svcd, { Cmd: ['cat', '/shared/x'], HostConfig: { VolumesFrom: [`${source}:ro`] } }),
      'hi\n',
    );
    const ro = await output(svcd, {
      Cmd: ['sh', '-c', 'echo no > /shared/y 2>&1 || echo refused'],
      HostConfig: { VolumesFrom: ['vsource:ro'] },
    });
    assert.match(ro, /refused/);
  });

  test('rm -v removes the anonymous volumes only; prune removes only what is unused', async () => {
    const { svcd } = engine();
    const id = await create(svcd, {
      Cmd: ['true'],
      Volumes: { '/anon': {} },
      HostConfig: { Binds: ['named:/named'] },
    });
    const mounts = (await inspect<ContainerInspect>(svcd, id)).Mounts;
    const anon = mounts.find((m) => m.Destination === '/anon')!.Name!;
    expectStatus(await svcd.request('DELETE', `/containers/${id}?v=1`), 204);
    expectStatus(await svcd.request('GET', `/volumes/${anon}`), 404);
    expectStatus(await svcd.request('GET', '/volumes/named'), 200);

    expectStatus(
      await svcd.request('POST', '/volumes/create', { body: { Name: 'keepme', Labels: { keep: 'yes' } } }),
      201,
    );
    expectStatus(await svcd.request('POST', '/volumes/create', { body: { Name: 'dropme' } }), 201);
    await writeFile(join(svcd.dataRoot, 'volumes', 'dropme', '_data', 'blob'), Buffer.alloc(4096));
    const inUse = await create(svcd, { Cmd: ['true'], HostConfig: { Binds: ['busy:/b'] } });
    const since = await eventsSince();
    const pruned = expectStatus(
      await svcd.request('POST', `/volumes/prune?filters=${encodeURIComponent('{"label!":["keep=yes"]}')}`),
      200,
    ).json<VolumePruneResponse>();
    assert.deepEqual(pruned.VolumesDeleted?.sort(), ['dropme', 'named']);
    assert.ok(pruned.SpaceReclaimed >= 4096, `reclaimed ${pruned.SpaceReclaimed}`);
    for (const name of ['keepme', 'busy']) expectStatus(await svcd.request('GET', `/volumes/${name}`), 200);
    const events = await engineEvents(svcd, since, { type: ['volume'] });
    assert.deepEqual(
      events.map((e) => `${e.Action} ${e.Actor.ID}`).sort(),
      ['destroy dropme', 'destroy named', 'prune '].sort(),
    );
    expectStatus(await svcd.request('DELETE', `/containers/${inUse}`), 204);
  });

  test('a tmpfs volume is a tmpfs of its size in the container; a bind volume shows the host directory', async () => {
    const { svcd } = engine();
    expectStatus(
      await svcd.request('POST', '/volumes/create', {
        body: { Name: 'scratch', DriverOpts: { type: 'tmpfs', device: 'tmpfs', o: 'size=2m,mode=1777' } },
      }),
      201,
    );
    const mountsLine = await output(svcd, {
      Cmd: ['grep', ' /scratch ', '/proc/mounts'],
      HostConfig: { Binds: ['scratch:/scratch'] },
    });
    assert.match(mountsLine, /^tmpfs \/scratch tmpfs .*size=2048k/);
    // Unmounted again once no running container uses it.
    const mounts = await eventually(
      () => readFile('/proc/self/mounts', 'utf8'),
      (table) => !table.includes('volumes/scratch/_data'),
    );
    assert.doesNotMatch(mounts, /volumes\/scratch\/_data/);

    const host = await mkdtemp(join(tmpdir(), 'svc-bindvol-'));
    try {
      await writeFile(join(host, 'from-host'), 'host says hi\n');
      expectStatus(
        await svcd.request('POST', '/volumes/create', {
          body: { Name: 'hostdir', DriverOpts: { type: 'none', device: host, o: 'bind' } },
        }),
        201,
      );
      assert.equal(
        await output(svcd, {
          Cmd: ['sh', '-c', 'cat /h/from-host; echo back > /h/from-container'],
          HostConfig: { Binds: ['hostdir:/h'] },
        }),
        'host says hi\n',
      );
      assert.equal(await readFile(join(host, 'from-container'), 'utf8'), 'back\n');
      const bad = await svcd.request('POST', '/volumes/create', {
        body: { Name: 'nodir', DriverOpts: { type: 'none', device: join(host, 'missing'), o: 'bind' } },
      });
      expectStatus(bad, 201);
      const id = await create(svcd, { Cmd: ['true'], HostConfig: { Binds: ['nodir:/n'] } });
      const start = await svcd.request('POST', `/containers/${id}/start`);
      assert.equal(start.status, 500);
      assert.match(start.json<{ message: string }>().message, /error while mounting volume/);
    } finally {
      for (const name of ['scratch', 'hostdir']) await svcd.request('DELETE', `/volumes/${name}?force=1`);
      await rm(host, { recursive: true, force: true });
    }
  });

  test('the archive API of a created, never-started container reads and writes its volumes, a bind volume mounted for the call only', async () => {
    const { svcd } = engine();
    const tarHeaders = { 'Content-Type': 'application/x-tar' };
    const filesOf = async (archive: Buffer) => {
      const out = new Map<string, string>();
      for await (const { header, body } of readTar(Readable.from([archive])))
        out.set(header.name, header.type === 'file' ? (await buffer(body)).toString() : header.type);
      return out;
    };
    /** A container as a volume browser makes one: it mounts the volume at /volume and never starts. */
    const browser = (volume: string) =>
      create(svcd, {
        Cmd: ['true'],
        HostConfig: {
          NetworkMode: 'none',
          Mounts: [{ Type: 'volume', Source: volume, Target: '/volume', VolumeOptions: { NoCopy: true } }],
        },
      });

    expectStatus(await svcd.request('POST', '/volumes/create', { body: { Name: 'browsed' } }), 201);
    await output(svcd, {
      Cmd: ['sh', '-c', 'mkdir /v/sub && echo kept > /v/sub/kept.txt'],
      HostConfig: { Binds: ['browsed:/v'] },
    });
    const id = await browser('browsed');
    const head = expectStatus(
      await svcd.request('HEAD', `/containers/${id}/archive?path=/volume/sub/kept.txt`),
      200,
    );
    assert.ok(head.headers['x-docker-container-path-stat']);
    const listed = await filesOf(
      expectStatus(await svcd.request('GET', `/containers/${id}/archive?path=/volume/.`), 200).body,
    );
    assert.equal(listed.get('./sub/kept.txt') ?? listed.get('sub/kept.txt'), 'kept\n');
    expectStatus(
      await svcd.request('PUT', `/containers/${id}/archive?path=/volume/sub`, {
        body: await tarOf([[{ name: 'up.txt' }, 'uploaded\n']]),
        headers: tarHeaders,
      }),
      200,
    );
    assert.equal(
      await output(svcd, { Cmd: ['cat', '/v/sub/up.txt'], HostConfig: { Binds: ['browsed:/v'] } }),
      'uploaded\n',
    );
    assert.equal((await inspect(svcd, id)).State.Status, 'created');

    const host = await mkdtemp(join(tmpdir(), 'svc-bindvol-'));
    try {
      await writeFile(join(host, 'from-host'), 'host says hi\n');
      expectStatus(
        await svcd.request('POST', '/volumes/create', {
          body: { Name: 'browsed-bind', DriverOpts: { type: 'none', device: host, o: 'bind' } },
        }),
        201,
      );
      const bound = await browser('browsed-bind');
      const read = await filesOf(
        expectStatus(await svcd.request('GET', `/containers/${bound}/archive?path=/volume/from-host`), 200)
          .body,
      );
      assert.equal(read.get('from-host'), 'host says hi\n');
      expectStatus(
        await svcd.request('PUT', `/containers/${bound}/archive?path=/volume`, {
          body: await tarOf([[{ name: 'from-browser' }, 'written\n']]),
          headers: tarHeaders,
        }),
        200,
      );
      assert.equal(await readFile(join(host, 'from-browser'), 'utf8'), 'written\n');
      // Unmounted once the calls are over: the container does not run.
      await eventually(
        () => readFile('/proc/self/mounts', 'utf8'),
        (table) => !table.includes('volumes/browsed-bind/_data'),
      );
      expectStatus(await svcd.request('DELETE', `/containers/${bound}`), 204);
      expectStatus(await svcd.request('DELETE', '/volumes/browsed-bind'), 204);
    } finally {
      await rm(host, { recursive: true, force: true });
    }
  });

  test('the same name created at once from many requests makes one volume and one event', async () => {
    const { svcd } = engine();
    const since = await eventsSince();
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => svcd.request('POST', '/volumes/create', { body: { Name: 'racy' } })),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      answers.map(() => 201),
    );
    assert.equal(new Set(answers.map((a) => a.json<Volume>().CreatedAt)).size, 1);
    const events = await engineEvents(svcd, since, { type: ['volume'], volume: ['racy'] });
    assert.deepEqual(
      events.map((e) => e.Action),
      ['create'],
    );
    // A removal racing creates of containers that use the volume: each container that exists has it.
    const racing = await Promise.all([
      ...Array.from({ length: 4 }, () =>
        svcd.request('POST', '/containers/create', {
          body: { Image: 'busybox', Cmd: ['true'], HostConfig: { Binds: ['racy:/r'] } },
        }),
      ),
      svcd.request('DELETE', '/volumes/racy'),
    ]);
    const created = racing.slice(0, 4).filter((r) => r.status === 201);
    if (created.length > 0) {
      expectStatus(await svcd.request('GET', '/volumes/racy'), 200);
      for (const c of created) {
        const id = c.json<{ Id: string }>().Id;
        const source = (await inspect<ContainerInspect>(svcd, id)).Mounts[0].Source;
        await readFile(join(source, '..', 'opts.json'));
        expectStatus(await svcd.request('DELETE', `/containers/${id}`), 204);
      }
    }
  });
});

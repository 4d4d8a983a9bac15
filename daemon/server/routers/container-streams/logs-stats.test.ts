// Logs, stats and events of real containers (svcd, containerd, runc, busybox).
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { buffer } from 'node:stream/consumers';
import { describe, test } from 'node:test';
import type { EngineEvent } from '../../../api/event-types';
import type { StatsSample } from '../../../api/stats-types';
import {
  containerEvents,
  create,
  eventually,
  expectStatus,
  inspect,
  run,
  useEngine,
} from '../../../testing/containers-fixture';
import { TarWriter } from '../../../lib/tar/tar-writer';
import { engineEvents } from '../../../testing/svcd-harness';
import { FrameParser, StdStream } from '../../streams/stdcopy';
import { openStream } from '../../testing/stream-client';

/** Demultiplexes a whole logs body into [stream, text] pairs. */
function frames(body: Buffer): Array<[string, string]> {
  return new FrameParser()
    .push(body)
    .map((f) => [f.stream === StdStream.stderr ? 'stderr' : 'stdout', f.payload.toString()]);
}

type Svcd = ReturnType<ReturnType<typeof useEngine>>['svcd'];

async function exited(svcd: Svcd, id: string): Promise<void> {
  await eventually(
    () => inspect(svcd, id),
    (c) => c.State.Status === 'exited',
  );
}

describe('logs, stats and events', () => {
  const engine = useEngine();

  test('logs: streams, timestamps, tail, since/until, details, tty raw, errors', async () => {
    const { svcd } = engine();
    const id = await run(svcd, {
      Cmd: ['sh', '-c', 'echo one; sleep 0.1; echo two >&2; sleep 0.1; echo three'],
      Labels: { team: 'a b' },
      HostConfig: { LogConfig: { Type: 'json-file', Config: { labels: 'team' } } },
    });
    await exited(svcd, id);
    const all = expectStatus(await svcd.request('GET', `/containers/${id}/logs?stdout=1&stderr=1`), 200);
    assert.equal(all.headers['content-type'], undefined);
    assert.deepEqual(frames(all.body), [
      ['stdout', 'one\n'],
      ['stderr', 'two\n'],
      ['stdout', 'three\n'],
    ]);
    const out = await svcd.request('GET', `/containers/${id}/logs?stdout=1&tail=1`);
    assert.deepEqual(frames(out.body), [['stdout', 'three\n']]);
    const stamped = frames((await svcd.request('GET', `/containers/${id}/logs?stderr=1&timestamps=1`)).body);
    assert.match(stamped[0][1], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z two\n$/);
    const t = stamped[0][1].slice(0, 30);
    const secs = (Date.parse(t) / 1000).toFixed(0);
    const future = (Date.now() / 1000 + 60).toFixed(0);
    assert.deepEqual(
      frames((await svcd.request('GET', `/containers/${id}/logs?stdout=1&since=${future}`)).body),
      [],
    );
    assert.equal(
      frames(
        (await svcd.request('GET', `/containers/${id}/logs?stdout=1&stderr=1&until=${Number(secs) - 5}`))
          .body,
      ).length,
      0,
    );
    const details = frames(
      (await svcd.request('GET', `/containers/${id}/logs?stdout=1&details=1&tail=1`)).body,
    );
    assert.deepEqual(details, [['stdout', 'team=a+b three\n']]);
    expectStatus(await svcd.request('GET', `/containers/${id}/logs`), 400);
    expectStatus(await svcd.request('GET', '/containers/nope/logs?stdout=1'), 404);
    assert.match((await inspect(svcd, id)).LogPath, new RegExp(`${id}/${id}-json.log$`));

    const tty = await run(svcd, { Cmd: ['sh', '-c', 'echo raw'], Tty: true });
    await exited(svcd, tty);
    const raw = await svcd.request('GET', `/containers/${tty}/logs?stdout=1`);
    assert.equal(raw.body.toString(), 'raw\r\n');

    const none = await run(svcd, { Cmd: ['true'], HostConfig: { LogConfig: { Type: 'none' } } });
    expectStatus(await svcd.request('GET', `/containers/${none}/logs?stdout=1`), 501);
    assert.equal((await inspect(svcd, none)).LogPath, '');
  });

  test('logs: follow over an upgraded stream continues across a restart and ends at stop', async () => {
    const { svcd } = engine();
    const id = await run(svcd, { Cmd: ['sh', '-c', 'echo run; exec sleep 30'] });
    const s = await openStream(svcd, 'GET', `/containers/${id}/logs?stdout=1&follow=1`, true);
    await s.waitFor('run\n');
    expectStatus(await svcd.request('POST', `/containers/${id}/restart?t=0`), 204);
    await s.waitFor('run\nrun\n');
    expectStatus(await svcd.request('POST', `/containers/${id}/stop?t=0`), 204);
    await s.ended;
    assert.equal(s.stdout, 'run\nrun\n');
  });

  test('logs: survive an svcd restart, output printed while it was away included', async () => {
    const { svcd } = engine();
    const id = await run(svcd, { Cmd: ['sh', '-c', 'echo before; sleep 1; echo during; exec sleep 60'] });
    await eventually(
      async () => frames((await svcd.request('GET', `/containers/${id}/logs?stdout=1`)).body).length,
      (n) => n === 1,
    );
    await svcd.stop();
    await new Promise((r) => setTimeout(r, 1500));
    await svcd.start();
    const lines = await eventually(
      async () =>
        frames((await svcd.request('GET', `/containers/${id}/logs?stdout=1`)).body).map(([, t]) => t),
      (l) => l.length === 2,
    );
    assert.deepEqual(lines, ['before\n', 'during\n']);
  });

  test('logs: 200,000 lines read back complete and in order', async () => {
    const { svcd } = engine();
    const id = await run(svcd, { Cmd: ['seq', '1', '200000'] });
    await exited(svcd, id);
    const res = await svcd.request('GET', `/containers/${id}/logs?stdout=1`);
    const text = frames(res.body)
      .map(([, t]) => t)
      .join('');
    const lines = text.split('\n');
    assert.equal(lines.length, 200001);
    for (let i = 0; i < 200000; i++) if (lines[i] !== String(i + 1)) assert.fail(`line ${i}: ${lines[i]}`);
  });

  test('stats: one-shot, stream=false with precpu, streaming, old shapes, stopped container', async () => {
    const { svcd } = engine();
    const id = await run(svcd, { Cmd: ['sleep', '60'] }, 'statted');
    const oneShot = expectStatus(
      await svcd.request('GET', `/containers/${id}/stats?stream=false&one-shot=true`),
      200,
    ).json<StatsSample>();
    assert.equal(oneShot.id, id);
    assert.equal(oneShot.name, '/statted');
    assert.ok(oneShot.cpu_stats.cpu_usage.total_usage > 0);
    assert.ok(oneShot.cpu_stats.system_cpu_usage! > 0);
    assert.ok(oneShot.cpu_stats.online_cpus! >= 1);
    assert.ok(Array.isArray(oneShot.cpu_stats.cpu_usage.percpu_usage));
    assert.equal(oneShot.precpu_stats.cpu_usage.total_usage, 0);
    assert.equal(oneShot.pids_stats.current, 1);
    assert.ok(oneShot.memory_stats.usage! > 0);
    assert.ok(oneShot.memory_stats.limit! > 0);
    assert.ok('rss' in oneShot.memory_stats.stats!);
    const single = (await svcd.request('GET', `/containers/${id}/stats?stream=0`)).json<StatsSample>();
    assert.ok(single.precpu_stats.system_cpu_usage! > 0);
    assert.notEqual(single.preread, '0001-01-01T00:00:00Z');
    const old = (await svcd.request('GET', `/v1.20/containers/${id}/stats?stream=0`)).json<StatsSample>();
    assert.equal(old.networks, undefined);
    assert.equal(old.cpu_stats.online_cpus, undefined);

    const streamed = await new Promise<string>((resolve, reject) => {
      const req = get({ socketPath: svcd.socket, path: `/containers/${id}/stats` }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
          if (text.split('\n').length >= 3) {
            req.destroy();
            resolve(text);
          }
        });
      });
      req.on('error', reject);
    });
    const [first, second] = streamed
      .split('\n')
      .slice(0, 2)
      .map((l) => JSON.parse(l) as StatsSample);
    assert.deepEqual(second.precpu_stats, first.cpu_stats);
    assert.equal(second.preread, first.read);

    const stopped = await create(svcd, { Cmd: ['true'] });
    const zero = (await svcd.request('GET', `/containers/${stopped}/stats?stream=false`)).json<StatsSample>();
    assert.equal(zero.read, '0001-01-01T00:00:00Z');
    assert.equal(zero.id, stopped);
    expectStatus(await svcd.request('GET', '/containers/nope/stats?stream=false'), 404);
  });

  test('events: since/until replay, until alone, filters, live start', async () => {
    const { svcd } = engine();
    const t0 = Date.now() / 1000;
    const id = await run(svcd, { Cmd: ['true'], Labels: { app: 'ev' } }, 'evented');
    await exited(svcd, id);
    const t1 = Date.now() / 1000 + 0.1;
    const get = async (query: string) =>
      (await svcd.request('GET', `/events?${query}`))
        .text()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as EngineEvent);
    const f = (o: object) => encodeURIComponent(JSON.stringify(o));
    const mine = await get(
      `since=${t0.toFixed(3)}&until=${t1.toFixed(3)}&filters=${f({ container: ['evented'] })}`,
    );
    assert.deepEqual(
      mine.map((e) => e.Action),
      ['create', 'start', 'die'],
    );
    const die = mine[2];
    assert.equal(die.status, 'die');
    assert.equal(die.id, id);
    assert.equal(die.from, 'busybox');
    assert.deepEqual(die.Actor.Attributes, { app: 'ev', image: 'busybox', name: 'evented', exitCode: '0' });
    const untilOnly = await get(
      `until=${t1.toFixed(3)}&filters=${f({ event: ['start'], label: ['app=ev'] })}`,
    );
    assert.deepEqual(
      untilOnly.map((e) => e.id),
      [id],
    );
    assert.equal((await get(`since=${t0}&until=${t1}&filters=${f({ type: ['image'] })}`)).length, 0);
    assert.equal(
      (await get(`since=${t0}&until=${t1}&filters=${f({ image: ['busybox'], event: ['die'] })}`)).length,
      1,
    );
    expectStatus(await svcd.request('GET', `/events?filters=${f({ bogus: ['x'] })}`), 400);
  });

  test('events: volumes a container makes and mounts, and its archive operations, as Docker', async () => {
    const { svcd } = engine();
    const t0 = Date.now() / 1000;
    const id = await run(
      svcd,
      { Cmd: ['sleep', '600'], Volumes: { '/anon': {} }, HostConfig: { Binds: ['evvol:/data:ro'] } },
      'vols',
    );
    const anon = (await inspect(svcd, id)).Mounts.find((m) => m.Destination === '/anon')?.Name;
    assert.match(anon ?? '', /^[0-9a-f]{64}$/);
    const writer = new TarWriter();
    const tar = buffer(writer.stream);
    await writer.add({ name: 'f.txt' }, 'in');
    await writer.finish();
    const put = await svcd.request('PUT', `/containers/${id}/archive?path=/tmp`, {
      body: await tar,
      headers: { 'Content-Type': 'application/x-tar' },
    });
    expectStatus(put, 200);
    expectStatus(await svcd.request('HEAD', `/containers/${id}/archive?path=/tmp/f.txt`), 200);
    expectStatus(await svcd.request('GET', `/containers/${id}/archive?path=/tmp/f.txt`), 200);
    const copy = await svcd.request('POST', `/v1.23/containers/${id}/copy`, {
      body: { Resource: '/tmp/f.txt' },
    });
    expectStatus(copy, 200);
    expectStatus(await svcd.request('GET', `/containers/${id}/archive?path=/nope`), 404);
    expectStatus(await svcd.request('POST', `/containers/${id}/stop?t=0`), 204);
    expectStatus(await svcd.request('DELETE', `/containers/${id}?v=1`), 204);

    assert.deepEqual(
      (await containerEvents(svcd, id, t0)).map((e) => e.Action),
      ['create', 'start', 'extract-to-dir', 'archive-path', 'copy', 'kill', 'kill', 'die', 'stop', 'destroy'],
    );
    const volumes = await engineEvents(svcd, t0, { type: ['volume'] });
    assert.deepEqual(
      volumes.map((e) => [e.Action, e.Actor.ID]),
      [
        ['create', 'evvol'],
        ['create', anon],
        ['mount', 'evvol'],
        ['mount', anon],
        ['unmount', 'evvol'],
        ['unmount', anon],
        ['destroy', anon],
      ],
    );
    assert.deepEqual(volumes[0].Actor.Attributes, { driver: 'local' });
    assert.deepEqual(volumes[2].Actor.Attributes, {
      container: id,
      destination: '/data',
      driver: 'local',
      propagation: '',
      'read/write': 'false',
    });
    assert.equal(volumes[3].Actor.Attributes['read/write'], 'true');
    assert.deepEqual(volumes[5].Actor.Attributes, { container: id, driver: 'local' });
    assert.deepEqual(volumes[6].Actor.Attributes, { driver: 'local' });
    assert.deepEqual(
      (await engineEvents(svcd, t0, { volume: ['evvol'] })).map((e) => e.Action),
      ['create', 'mount', 'unmount'],
    );
  });
});

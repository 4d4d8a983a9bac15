import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { ContainerSummary } from '../../../api/container-summary-types';
import { create, expectStatus, inspect, run, useEngine } from '../../../testing/containers-fixture';

describe('container list, inspect and prune', () => {
  const suite = useEngine();
  const ids: Record<string, string> = {};
  before(async () => {
    const { svcd } = suite();
    ids.created = await create(svcd, { Labels: { tier: 'db' }, ExposedPorts: { '80/tcp': {} } }, 'l-created');
    ids.exited = await run(svcd, { Cmd: ['sh', '-c', 'exit 3'], Labels: { tier: 'web' } }, 'l-exited');
    await svcd.request('POST', `/containers/${ids.exited}/wait`);
    ids.running = await run(
      svcd,
      { Cmd: ['sleep', '300'], Volumes: { '/vol': {} }, Labels: { tier: 'web', extra: 'x' } },
      'l-running',
    );
    ids.paused = await run(svcd, { Cmd: ['sleep', '300'] }, 'l-paused');
    await svcd.request('POST', `/containers/${ids.paused}/pause`);
  });

  async function list(query: string): Promise<ContainerSummary[]> {
    return expectStatus(await suite().svcd.request('GET', `/containers/json${query}`), 200).json<
      ContainerSummary[]
    >();
  }
  const filter = (f: Record<string, string[]>) => `filters=${encodeURIComponent(JSON.stringify(f))}`;
  const namesOf = (l: ContainerSummary[]) => l.map((c) => c.Names[0]).sort();

  test('running ones by default, all with all=1, newest first, limit', async () => {
    assert.deepEqual(namesOf(await list('')), ['/l-paused', '/l-running']);
    const all = await list('?all=1');
    assert.deepEqual(
      all.map((c) => c.Names[0]),
      ['/l-paused', '/l-running', '/l-exited', '/l-created'],
    );
    assert.deepEqual(
      (await list('?limit=1')).map((c) => c.Names[0]),
      ['/l-paused'],
    );
    assert.deepEqual(namesOf(await list(`?since=${ids.exited}`)), ['/l-paused', '/l-running']);
    assert.deepEqual(namesOf(await list(`?before=${ids.exited}`)), ['/l-created']);
  });

  test('summary fields: State, Status text, Command, Ports, Mounts, sizes on request', async () => {
    const all = await list('?all=1&size=1');
    const by = Object.fromEntries(all.map((c) => [c.Names[0], c]));
    assert.equal(by['/l-created'].State, 'created');
    assert.equal(by['/l-created'].Status, 'Created');
    assert.match(by['/l-exited'].Status, /^Exited \(3\) .* ago$/);
    assert.match(by['/l-running'].Status, /^Up /);
    assert.match(by['/l-paused'].Status, /\(Paused\)$/);
    assert.equal(by['/l-running'].Command, 'sleep 300');
    assert.deepEqual(by['/l-created'].Ports, [{ PrivatePort: 80, Type: 'tcp' }]);
    assert.equal(by['/l-running'].Mounts[0].Destination, '/vol');
    assert.equal(by['/l-running'].ImageID, suite().imageId);
    // Nothing written: a SizeRw of 0, which the list leaves out as dockerd does.
    assert.equal(by['/l-running'].SizeRw, undefined);
    assert.ok((by['/l-running'].SizeRootFs ?? 0) > 1_000_000, 'image layers counted');
    assert.equal((await list('?all=1'))[0].SizeRw, undefined);
  });

  test('every filter of the spec', async () => {
    assert.deepEqual(namesOf(await list(`?all=1&${filter({ exited: ['3'] })}`)), ['/l-exited']);
    assert.deepEqual(namesOf(await list(`?${filter({ status: ['created'] })}`)), ['/l-created']);
    assert.deepEqual(namesOf(await list(`?${filter({ status: ['paused', 'exited'] })}`)), [
      '/l-exited',
      '/l-paused',
    ]);
    assert.deepEqual(namesOf(await list(`?all=1&${filter({ label: ['tier=web'] })}`)), [
      '/l-exited',
      '/l-running',
    ]);
    assert.deepEqual(namesOf(await list(`?all=1&${filter({ label: ['tier', 'extra'] })}`)), ['/l-running']);
    assert.equal((await list(`?all=1&${filter({ ancestor: ['busybox'] })}`)).length, 4);
    assert.equal((await list(`?all=1&${filter({ ancestor: [suite().imageId] })}`)).length, 4);
    assert.equal((await list(`?all=1&${filter({ ancestor: ['nosuch'] })}`)).length, 0);
    assert.deepEqual(namesOf(await list(`?all=1&${filter({ before: ['l-exited'] })}`)), ['/l-created']);
    assert.deepEqual(namesOf(await list(`?all=1&${filter({ since: ['l-running'] })}`)), ['/l-paused']);
    assert.deepEqual(namesOf(await list(`?all=1&${filter({ volume: ['/vol'] })}`)), ['/l-running']);
    assert.deepEqual(namesOf(await list(`?all=1&${filter({ name: ['l-ex'] })}`)), ['/l-exited']);
    assert.deepEqual(namesOf(await list(`?all=1&${filter({ id: [ids.created.slice(0, 10)] })}`)), [
      '/l-created',
    ]);
    assert.equal((await list(`?all=1&${filter({ health: ['none'] })}`)).length, 4);
    assert.equal((await list(`?all=1&${filter({ isolation: ['default'] })}`)).length, 4);
    assert.equal((await list(`?all=1&${filter({ network: ['default'] })}`)).length, 4);
    expectStatus(await suite().svcd.request('GET', `/containers/json?${filter({ bogus: ['x'] })}`), 400);
    expectStatus(
      await suite().svcd.request('GET', `/containers/json?${filter({ status: ['sleepy'] })}`),
      400,
    );
  });

  test('inspect: ID prefix and name resolve; an ambiguous prefix is refused; size=1 adds sizes', async () => {
    const { svcd } = suite();
    const info = await inspect(svcd, 'l-running');
    assert.equal(info.Id, ids.running);
    assert.equal(info.State.Running, true);
    assert.equal(info.Driver, 'overlayfs');
    assert.equal(info.HostConfig.NetworkMode, 'default');
    assert.equal(info.SizeRw, undefined);
    const sized = expectStatus(
      await svcd.request('GET', `/containers/${ids.running}/json?size=1`),
      200,
    ).json<{ SizeRw: number }>();
    assert.equal(typeof sized.SizeRw, 'number');
    // Four random IDs share their first hex digit often enough; find a shared one-digit prefix.
    const all = Object.values(ids);
    const shared = [...'0123456789abcdef'].find((d) => all.filter((i) => i.startsWith(d)).length > 1);
    if (shared) expectStatus(await svcd.request('GET', `/containers/${shared}/json`), 400);
    expectStatus(await svcd.request('GET', '/containers/nosuchthing/json'), 404);
  });

  test('prune removes stopped containers and reports the space', async () => {
    const { svcd } = suite();
    const res = expectStatus(await svcd.request('POST', '/containers/prune'), 200).json<{
      ContainersDeleted: string[];
      SpaceReclaimed: number;
    }>();
    assert.deepEqual(res.ContainersDeleted.sort(), [ids.created, ids.exited].sort());
    assert.equal(typeof res.SpaceReclaimed, 'number');
    assert.deepEqual(namesOf(await list('?all=1')), ['/l-paused', '/l-running']);
    const info = expectStatus(await svcd.request('GET', '/info'), 200).json<{
      Containers: number;
      ContainersPaused: number;
    }>();
    assert.equal(info.Containers, 2);
    assert.equal(info.ContainersPaused, 1);
  });
});

import assert from 'node:assert/strict';
import { buffer } from 'node:stream/consumers';
import { describe, test } from 'node:test';
import { TarWriter } from '../../../lib/tar/tar-writer';
import {
  containerEvents,
  eventually,
  expectStatus,
  inspect,
  run,
  useEngine,
} from '../../../testing/containers-fixture';

describe('restart policies, OOM and healthchecks', () => {
  const suite = useEngine();

  test('on-failure:2 restarts twice, with growing delays, then stays exited', async () => {
    const { svcd } = suite();
    const since = Date.now() / 1000;
    const id = await run(svcd, {
      Cmd: ['sh', '-c', 'exit 3'],
      HostConfig: { RestartPolicy: { Name: 'on-failure', MaximumRetryCount: 2 } },
    });
    const info = await eventually(
      () => inspect(svcd, id),
      (i) => i.RestartCount === 2 && i.State.Status === 'exited',
    );
    assert.equal(info.RestartCount, 2);
    assert.equal(info.State.Status, 'exited');
    assert.equal(info.State.ExitCode, 3);
    await new Promise((r) => setTimeout(r, 600));
    assert.equal((await inspect(svcd, id)).RestartCount, 2);
    const starts = (await containerEvents(suite().svcd, id, since))
      .filter((e) => e.Action === 'start')
      .map((e) => e.timeNano / 1e6);
    assert.equal(starts.length, 3);
    // 100 ms, then 200 ms.
    assert.ok(starts[1] - starts[0] >= 100, `first delay ${starts[1] - starts[0]}`);
    assert.ok(starts[2] - starts[1] >= 200, `second delay ${starts[2] - starts[1]}`);
  });

  test('on-failure does not restart a clean exit; always does; stop ends it', async () => {
    const { svcd } = suite();
    const clean = await run(svcd, { Cmd: ['true'], HostConfig: { RestartPolicy: { Name: 'on-failure' } } });
    await svcd.request('POST', `/containers/${clean}/wait`);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await inspect(svcd, clean)).RestartCount, 0);
    const always = await run(svcd, {
      Cmd: ['sh', '-c', 'sleep 0.2'],
      HostConfig: { RestartPolicy: { Name: 'always' } },
    });
    await eventually(
      () => inspect(svcd, always),
      (i) => i.RestartCount >= 2,
    );
    expectStatus(await svcd.request('POST', `/containers/${always}/stop?t=1`), 204);
    const stopped = await inspect(svcd, always);
    await new Promise((r) => setTimeout(r, 500));
    const later = await inspect(svcd, always);
    assert.equal(later.State.Status, 'exited');
    assert.equal(later.RestartCount, stopped.RestartCount);
  });

  test('a container over its 32 MiB memory limit is OOM-killed and says so', async () => {
    const { svcd } = suite();
    const since = Date.now() / 1000;
    const id = await run(svcd, {
      // Grows a shell variable to 64 MiB.
      Cmd: [
        'sh',
        '-c',
        'x=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; while :; do x=$x$x; done',
      ],
      HostConfig: { Memory: 32 * 1024 * 1024, MemorySwap: 32 * 1024 * 1024 },
    });
    const wait = await svcd.request('POST', `/containers/${id}/wait`);
    assert.equal(wait.json<{ StatusCode: number }>().StatusCode, 137);
    const state = (await inspect(svcd, id)).State;
    assert.equal(state.OOMKilled, true);
    assert.equal(state.ExitCode, 137);
    const actions = (await containerEvents(suite().svcd, id, since)).map((e) => e.Action);
    assert.ok(actions.includes('oom'), actions.join(','));
  });

  test('healthcheck: starting, then healthy, with a log and health_status events', async () => {
    const { svcd } = suite();
    const since = Date.now() / 1000;
    const id = await run(svcd, {
      Cmd: ['sleep', '300'],
      Healthcheck: {
        Test: ['CMD-SHELL', 'echo probe; test -f /tmp/ok'],
        Interval: 200e6,
        Timeout: 2e9,
        Retries: 2,
      },
    });
    assert.equal((await inspect(svcd, id)).State.Health?.Status, 'starting');
    const unhealthy = await eventually(
      () => inspect(svcd, id),
      (i) => i.State.Health?.Status === 'unhealthy',
    );
    assert.equal(unhealthy.State.Health?.FailingStreak, 2);
    assert.equal(unhealthy.State.Health?.Log[0].Output, 'probe\n');
    const list = await svcd.request(
      'GET',
      `/containers/json?filters=${encodeURIComponent(JSON.stringify({ health: ['unhealthy'] }))}`,
    );
    assert.ok(
      list
        .json<Array<{ Id: string; Status: string }>>()
        .some((c) => c.Id === id && /\(unhealthy\)/.test(c.Status)),
    );
    // Make the probe pass by creating the file from the outside.
    const writer = new TarWriter();
    const body = buffer(writer.stream);
    await writer.add({ name: 'ok' }, 'x');
    await writer.finish();
    expectStatus(
      await svcd.request('PUT', `/containers/${id}/archive?path=/tmp`, {
        body: await body,
        headers: { 'Content-Type': 'application/x-tar' },
      }),
      200,
    );
    const healthy = await eventually(
      () => inspect(svcd, id),
      (i) => i.State.Health?.Status === 'healthy',
    );
    assert.equal(healthy.State.Health?.FailingStreak, 0);
    assert.ok(healthy.State.Health!.Log.length <= 5);
    const actions = (await containerEvents(suite().svcd, id, since)).map((e) => e.Action);
    assert.ok(
      actions.includes('health_status: unhealthy') && actions.includes('health_status: healthy'),
      actions.join(','),
    );
  });

  test("healthcheck NONE disables the image's check", async () => {
    const id = await run(suite().svcd, { Cmd: ['sleep', '300'], Healthcheck: { Test: ['NONE'] } });
    assert.equal((await inspect(suite().svcd, id)).State.Health, undefined);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventsSince } from '../../../testing/engine-client';
import {
  containerEvents,
  create,
  expectStatus,
  inspect,
  run,
  useEngine,
} from '../../../testing/containers-fixture';

describe('container lifecycle', () => {
  const suite = useEngine();

  test('start answers 204 then 304; stop 204 then 304; State follows', async () => {
    const { svcd } = suite();
    const id = await create(svcd, { Cmd: ['sleep', '300'], StopSignal: 'SIGKILL' });
    assert.equal((await inspect(svcd, id)).State.Status, 'created');
    expectStatus(await svcd.request('POST', `/containers/${id}/start`), 204);
    expectStatus(await svcd.request('POST', `/containers/${id}/start`), 304);
    const running = (await inspect(svcd, id)).State;
    assert.equal(running.Status, 'running');
    assert.equal(running.Running, true);
    assert.ok(running.Pid > 0);
    expectStatus(await svcd.request('POST', `/containers/${id}/stop?t=5`), 204);
    expectStatus(await svcd.request('POST', `/containers/${id}/stop`), 304);
    const stopped = (await inspect(svcd, id)).State;
    assert.equal(stopped.Status, 'exited');
    assert.equal(stopped.Running, false);
    assert.equal(stopped.Pid, 0);
    assert.equal(stopped.ExitCode, 137);
    assert.ok(Date.parse(stopped.FinishedAt) >= Date.parse(running.StartedAt));
  });

  test('stop sends StopSignal, then SIGKILL after t seconds', async () => {
    const { svcd } = suite();
    // busybox as PID 1 ignores SIGTERM: only the SIGKILL after t ends it.
    const id = await run(svcd, { Cmd: ['sleep', '300'] });
    const t0 = Date.now();
    expectStatus(await svcd.request('POST', `/containers/${id}/stop?t=1`), 204);
    assert.ok(Date.now() - t0 >= 900, 'waited t seconds');
    assert.equal((await inspect(svcd, id)).State.ExitCode, 137);
    const trap = await run(svcd, {
      Cmd: ['sh', '-c', "trap 'exit 42' USR1; while :; do sleep 0.1; done"],
      StopSignal: 'SIGUSR1',
    });
    expectStatus(await svcd.request('POST', `/containers/${trap}/stop?t=20`), 204);
    assert.equal((await inspect(svcd, trap)).State.ExitCode, 42);
  });

  test('kill: signal names and numbers, default SIGKILL waits for the exit, 409 when not running', async () => {
    const { svcd } = suite();
    const id = await run(svcd, {
      Cmd: ['sh', '-c', "trap 'exit 10' HUP; trap 'exit 12' USR2; while :; do sleep 0.1; done"],
    });
    await new Promise((r) => setTimeout(r, 300));
    expectStatus(await svcd.request('POST', `/containers/${id}/kill?signal=HUP`), 204);
    const w = await svcd.request('POST', `/containers/${id}/wait`);
    assert.deepEqual(w.json(), { StatusCode: 10, Error: null });
    expectStatus(await svcd.request('POST', `/containers/${id}/kill`), 409);
    expectStatus(await svcd.request('POST', `/containers/${id}/start`), 204);
    await new Promise((r) => setTimeout(r, 300));
    expectStatus(await svcd.request('POST', `/containers/${id}/kill?signal=12`), 204);
    assert.equal(
      (await svcd.request('POST', `/containers/${id}/wait`)).json<{ StatusCode: number }>().StatusCode,
      12,
    );
    expectStatus(await svcd.request('POST', `/containers/${id}/start`), 204);
    expectStatus(await svcd.request('POST', `/containers/${id}/kill`), 204);
    // The default SIGKILL returns only once the container has exited.
    assert.equal((await inspect(svcd, id)).State.Status, 'exited');
    expectStatus(await svcd.request('POST', `/containers/${id}/kill?signal=NOPE`), 400);
  });

  test('pause and unpause freeze and thaw the processes', async () => {
    const { svcd } = suite();
    const id = await run(svcd, { Cmd: ['sleep', '300'] });
    expectStatus(await svcd.request('POST', `/containers/${id}/pause`), 204);
    let state = (await inspect(svcd, id)).State;
    assert.equal(state.Status, 'paused');
    assert.equal(state.Paused, true);
    assert.equal(state.Running, true);
    expectStatus(await svcd.request('POST', `/containers/${id}/pause`), 409);
    expectStatus(await svcd.request('POST', `/containers/${id}/start`), 409);
    const del = await svcd.request('DELETE', `/containers/${id}`);
    expectStatus(del, 409);
    expectStatus(await svcd.request('POST', `/containers/${id}/unpause`), 204);
    state = (await inspect(svcd, id)).State;
    assert.equal(state.Status, 'running');
    assert.equal(state.Paused, false);
    expectStatus(await svcd.request('POST', `/containers/${id}/unpause`), 409);
    const stopped = await create(svcd, { Cmd: ['true'] });
    expectStatus(await svcd.request('POST', `/containers/${stopped}/pause`), 409);
  });

  test('restart runs the container again', async () => {
    const { svcd } = suite();
    const id = await run(svcd, { Cmd: ['sleep', '300'] });
    const first = (await inspect(svcd, id)).State;
    const since = await eventsSince();
    expectStatus(await svcd.request('POST', `/containers/${id}/restart?t=0`), 204);
    // As dockerd: its stop, then its start, then the restart itself.
    assert.deepEqual(
      (await containerEvents(svcd, id, since)).map((e) => e.Action),
      ['kill', 'kill', 'die', 'stop', 'start', 'restart'],
    );
    const second = (await inspect(svcd, id)).State;
    assert.equal(second.Status, 'running');
    assert.notEqual(second.Pid, first.Pid);
    assert.ok(second.StartedAt > first.StartedAt);
    const created = await create(svcd, { Cmd: ['sleep', '300'] });
    const createdSince = await eventsSince();
    expectStatus(await svcd.request('POST', `/containers/${created}/restart`), 204);
    assert.equal((await inspect(svcd, created)).State.Status, 'running');
    assert.deepEqual(
      (await containerEvents(svcd, created, createdSince)).map((e) => e.Action),
      ['start', 'restart'],
    );
  });

  test('wait: not-running, next-exit, removed, and Error only from 1.34', async () => {
    const { svcd } = suite();
    const created = await create(svcd, { Cmd: ['sh', '-c', 'exit 5'] });
    // not-running answers at once for a created container.
    assert.deepEqual((await svcd.request('POST', `/containers/${created}/wait`)).json(), {
      StatusCode: 0,
      Error: null,
    });
    const next = svcd.request('POST', `/containers/${created}/wait?condition=next-exit`);
    await new Promise((r) => setTimeout(r, 200));
    expectStatus(await svcd.request('POST', `/containers/${created}/start`), 204);
    assert.equal((await next).json<{ StatusCode: number }>().StatusCode, 5);
    const old = await svcd.request('POST', `/v1.30/containers/${created}/wait`);
    assert.deepEqual(old.json(), { StatusCode: 5 });
    expectStatus(await svcd.request('POST', `/containers/${created}/wait?condition=bogus`), 400);
    const removed = svcd.request('POST', `/containers/${created}/wait?condition=removed`);
    await new Promise((r) => setTimeout(r, 200));
    expectStatus(await svcd.request('DELETE', `/containers/${created}`), 204);
    assert.equal((await removed).json<{ StatusCode: number }>().StatusCode, 5);
    expectStatus(await svcd.request('POST', `/containers/nonexistent/wait`), 404);
  });

  test('rename: 204, 409 on a taken name, 400 on an invalid one; events carry the names', async () => {
    const { svcd } = suite();
    const a = await create(svcd, {}, 'rename-a');
    await create(svcd, {}, 'rename-b');
    expectStatus(await svcd.request('POST', `/containers/rename-a/rename?name=rename-b`), 409);
    expectStatus(await svcd.request('POST', `/containers/rename-a/rename?name=bad%20name`), 400);
    expectStatus(await svcd.request('POST', `/containers/rename-a/rename?name=rename-c`), 204);
    assert.equal((await inspect(svcd, a)).Name, '/rename-c');
    expectStatus(await svcd.request('GET', `/containers/rename-a/json`), 404);
    expectStatus(await svcd.request('GET', `/containers/rename-c/json`), 200);
    const list = await containerEvents(svcd, a, Date.now() / 1000 - 60);
    const rename = list.find((e) => e.Action === 'rename');
    assert.equal(rename?.Actor.Attributes.oldName, '/rename-a');
    assert.equal(rename?.Actor.Attributes.name, 'rename-c');
    assert.equal(rename?.Actor.Attributes.image, 'busybox');
  });

  test('update changes the cgroup limits of the running task and the restart policy', async () => {
    const { svcd } = suite();
    const id = await run(svcd, { Cmd: ['sleep', '300'] });
    const res = await svcd.request('POST', `/containers/${id}/update`, {
      body: {
        Memory: 64 * 1024 * 1024,
        MemorySwap: 128 * 1024 * 1024,
        CpuShares: 512,
        RestartPolicy: { Name: 'on-failure', MaximumRetryCount: 3 },
      },
    });
    expectStatus(res, 200);
    const info = await inspect(svcd, id);
    assert.equal(info.HostConfig.Memory, 64 * 1024 * 1024);
    assert.deepEqual(info.HostConfig.RestartPolicy, { Name: 'on-failure', MaximumRetryCount: 3 });
    const cgroup = `/sys/fs/cgroup/memory${'/svc'}/${id}/memory.limit_in_bytes`;
    const { readFileSync } = await import('node:fs');
    assert.equal(readFileSync(cgroup, 'utf8').trim(), String(64 * 1024 * 1024));
    expectStatus(await svcd.request('POST', `/containers/${id}/update`, { body: { Memory: 1024 } }), 400);
    expectStatus(
      await svcd.request('POST', `/containers/${id}/update`, {
        body: { RestartPolicy: { Name: 'sometimes' } },
      }),
      400,
    );
    expectStatus(await svcd.request('POST', `/containers/nope/update`, { body: {} }), 404);
  });

  test('delete: 409 while running, force kills; v removes anonymous volumes', async () => {
    const { svcd } = suite();
    const id = await run(svcd, { Cmd: ['sleep', '300'], Volumes: { '/data': {} } });
    const info = await inspect(svcd, id);
    const volume = info.Mounts[0].Source;
    expectStatus(await svcd.request('DELETE', `/containers/${id}`), 409);
    expectStatus(await svcd.request('DELETE', `/containers/${id}?force=1&v=1`), 204);
    expectStatus(await svcd.request('GET', `/containers/${id}/json`), 404);
    const { existsSync } = await import('node:fs');
    assert.equal(existsSync(volume), false);
    expectStatus(await svcd.request('DELETE', `/containers/${id}`), 404);
  });

  test('events: create, start, die with exitCode, destroy, with image, name and labels', async () => {
    const { svcd } = suite();
    const since = Date.now() / 1000;
    const id = await run(svcd, { Cmd: ['sh', '-c', 'exit 7'], Labels: { team: 'blue' } }, 'evented');
    await svcd.request('POST', `/containers/${id}/wait`);
    expectStatus(await svcd.request('DELETE', `/containers/${id}`), 204);
    const list = await containerEvents(svcd, id, since);
    assert.deepEqual(
      list.map((e) => e.Action),
      ['create', 'start', 'die', 'destroy'],
    );
    assert.equal(list[2].Actor.Attributes.exitCode, '7');
    for (const e of list) {
      assert.equal(e.Actor.Attributes.name, 'evented');
      assert.equal(e.Actor.Attributes.image, 'busybox');
      assert.equal(e.Actor.Attributes.team, 'blue');
    }
  });

  test('output is read as it comes: a container writing megabytes to stdout and stderr ends', async () => {
    const { svcd } = suite();
    const id = await run(svcd, {
      Cmd: ['sh', '-c', 'head -c 2000000 /dev/zero; head -c 2000000 /dev/zero >&2'],
    });
    const res = await svcd.request('POST', `/containers/${id}/wait`);
    assert.equal(res.json<{ StatusCode: number }>().StatusCode, 0);
    const tty = await run(svcd, { Tty: true, Cmd: ['sh', '-c', 'head -c 2000000 /dev/zero'] });
    assert.equal(
      (await svcd.request('POST', `/containers/${tty}/wait`)).json<{ StatusCode: number }>().StatusCode,
      0,
    );
  });
});

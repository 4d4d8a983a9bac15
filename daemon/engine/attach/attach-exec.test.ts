// Attach and exec against a real svcd, containerd and runc with the busybox image.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ExecInspect } from '../exec/exec-types';
import {
  containerEvents,
  create,
  eventually,
  expectStatus,
  inspect,
  run,
  useEngine,
} from '../containers/testing/containers-fixture';
import { openStream } from './testing/stream-client';

describe('attach and exec', () => {
  const engine = useEngine();

  test('attach before start gets all output of a short run, framed by stream', async () => {
    const { svcd } = engine();
    const id = await create(svcd, { Cmd: ['sh', '-c', 'echo out; echo err >&2'] });
    const s = await openStream(svcd, 'POST', `/containers/${id}/attach?stream=1&stdout=1&stderr=1`, true);
    expectStatus(await svcd.request('POST', `/containers/${id}/start`), 204);
    await s.ended;
    assert.equal(s.stdout, 'out\n');
    assert.equal(s.stderr, 'err\n');
  });

  test('stdin piped through a non-tty attach reaches the process; StdinOnce closes it', async () => {
    const { svcd } = engine();
    const since = Date.now() / 1000;
    const id = await create(svcd, {
      Cmd: ['sh', '-c', 'while read l; do echo "got $l"; done; echo bye'],
      OpenStdin: true,
      StdinOnce: true,
      AttachStdin: true,
    });
    const s = await openStream(
      svcd,
      'POST',
      `/containers/${id}/attach?stream=1&stdin=1&stdout=1&stderr=1`,
      true,
    );
    expectStatus(await svcd.request('POST', `/containers/${id}/start`), 204);
    s.conn.write('one\ntwo\n');
    await s.waitFor('got two\n');
    s.conn.end();
    await s.ended;
    assert.equal(s.stdout, 'got one\ngot two\nbye\n');
    const state = await eventually(
      () => inspect(svcd, id),
      (c) => c.State.Status === 'exited',
    );
    assert.equal(state.State.ExitCode, 0);
    const actions = (await containerEvents(svcd, id, since)).map((e) => e.Action);
    assert.ok(actions.includes('attach'), actions.join());
  });

  test('detach keys leave a tty container running and emit detach', async () => {
    const { svcd } = engine();
    const since = Date.now() / 1000;
    const id = await run(svcd, { Cmd: ['sh'], Tty: true, OpenStdin: true });
    const s = await openStream(
      svcd,
      'POST',
      `/containers/${id}/attach?stream=1&stdin=1&stdout=1&detachKeys=ctrl-a,x`,
      false,
    );
    s.conn.write('echo hel""lo\n');
    await s.waitFor('hello');
    s.conn.write(Buffer.from([1, 0x78]));
    await s.ended;
    assert.equal((await inspect(svcd, id)).State.Running, true);
    const actions = (await containerEvents(svcd, id, since)).map((e) => e.Action);
    assert.ok(actions.includes('detach'), actions.join());
  });

  test('attach to a paused container is refused (1.22+), an unknown one is 404', async () => {
    const { svcd } = engine();
    const id = await run(svcd, { Cmd: ['sleep', '60'] });
    expectStatus(await svcd.request('POST', `/containers/${id}/pause`), 204);
    expectStatus(await svcd.request('POST', `/containers/${id}/attach?stream=1&stdout=1`), 409);
    expectStatus(await svcd.request('POST', `/containers/${id}/exec`, { body: { Cmd: ['true'] } }), 409);
    expectStatus(await svcd.request('POST', `/containers/${id}/unpause`), 204);
    expectStatus(await svcd.request('POST', '/containers/nope/attach?stream=1'), 404);
  });

  test('exec: output, exit code, env, working dir, user, inspect and events', async () => {
    const { svcd } = engine();
    const since = Date.now() / 1000;
    const id = await run(svcd, { Cmd: ['sleep', '60'], Env: ['A=container'] });
    const created = expectStatus(
      await svcd.request('POST', `/containers/${id}/exec`, {
        body: {
          Cmd: ['sh', '-c', 'echo $A $B; pwd; id -u; echo oops >&2; exit 3'],
          Env: ['B=exec'],
          WorkingDir: '/tmp',
          User: '1000',
          AttachStdout: true,
          AttachStderr: true,
        },
      }),
      201,
    ).json<{ Id: string }>();
    const before = expectStatus(
      await svcd.request('GET', `/exec/${created.Id}/json`),
      200,
    ).json<ExecInspect>();
    assert.equal(before.Running, false);
    assert.equal(before.ExitCode, null);
    assert.deepEqual((await inspect(svcd, id)).ExecIDs, [created.Id]);
    const s = await openStream(svcd, 'POST', `/exec/${created.Id}/start`, true, {
      Detach: false,
      Tty: false,
    });
    await s.ended;
    assert.equal(s.stdout, 'container exec\n/tmp\n1000\n');
    assert.equal(s.stderr, 'oops\n');
    const after = expectStatus(
      await svcd.request('GET', `/exec/${created.Id}/json`),
      200,
    ).json<ExecInspect>();
    assert.equal(after.Running, false);
    assert.equal(after.ExitCode, 3);
    assert.ok(after.Pid! > 0);
    assert.deepEqual(after.ProcessConfig, {
      tty: false,
      entrypoint: 'sh',
      arguments: ['-c', 'echo $A $B; pwd; id -u; echo oops >&2; exit 3'],
      privileged: false,
      user: '1000',
    });
    assert.equal(after.ContainerID, id);
    assert.equal((await inspect(svcd, id)).ExecIDs, null);
    // Older clients see neither Pid nor the newer fields' effect.
    const old = expectStatus(
      await svcd.request('GET', `/v1.24/exec/${created.Id}/json`),
      200,
    ).json<ExecInspect>();
    assert.equal(old.Pid, undefined);
    expectStatus(await svcd.request('POST', `/exec/${created.Id}/start`, { body: { Detach: true } }), 409);
    const events = await containerEvents(svcd, id, since);
    const exec = events.filter((e) => e.Action.startsWith('exec_'));
    assert.deepEqual(
      exec.map((e) => e.Action.split(':')[0]),
      ['exec_create', 'exec_start', 'exec_die'],
    );
    assert.equal(exec[2].Actor.Attributes.exitCode, '3');
    assert.equal(exec[2].Actor.Attributes.execID, created.Id);
    expectStatus(await svcd.request('GET', '/exec/nope/json'), 404);
    expectStatus(await svcd.request('POST', '/containers/nope/exec', { body: { Cmd: ['true'] } }), 404);
  });

  test('exec: stopped container 409, detached start, stdin, tty resize changes stty size', async () => {
    const { svcd } = engine();
    const stopped = await create(svcd, { Cmd: ['true'] });
    expectStatus(await svcd.request('POST', `/containers/${stopped}/exec`, { body: { Cmd: ['true'] } }), 409);

    const id = await run(svcd, { Cmd: ['sleep', '60'] });
    const detached = expectStatus(
      await svcd.request('POST', `/containers/${id}/exec`, { body: { Cmd: ['touch', '/detached'] } }),
      201,
    ).json<{ Id: string }>().Id;
    expectStatus(await svcd.request('POST', `/exec/${detached}/start`, { body: { Detach: true } }), 200);
    await eventually(
      () => svcd.request('GET', `/exec/${detached}/json`).then((r) => r.json<ExecInspect>()),
      (e) => e.ExitCode === 0,
    );

    const cat = expectStatus(
      await svcd.request('POST', `/containers/${id}/exec`, {
        body: { Cmd: ['cat'], AttachStdin: true, AttachStdout: true },
      }),
      201,
    ).json<{ Id: string }>().Id;
    const c = await openStream(svcd, 'POST', `/exec/${cat}/start`, true, {});
    c.conn.end('piped through\n');
    await c.ended;
    assert.equal(c.stdout, 'piped through\n');

    const tty = expectStatus(
      await svcd.request('POST', `/containers/${id}/exec`, {
        body: { Cmd: ['sh'], Tty: true, AttachStdin: true, AttachStdout: true },
      }),
      201,
    ).json<{ Id: string }>().Id;
    const t = await openStream(svcd, 'POST', `/exec/${tty}/start`, false, { Tty: true });
    expectStatus(await svcd.request('POST', `/exec/${tty}/resize?h=33&w=101`), 201);
    t.conn.write('stty size\n');
    await t.waitFor('33 101');
    expectStatus(await svcd.request('POST', `/exec/${tty}/resize?h=20&w=70`), 201);
    t.conn.write('stty size; exit\n');
    await t.waitFor('20 70');
    await t.ended;
    expectStatus(await svcd.request('POST', `/exec/${cat}/resize?h=20&w=70`), 400);
  });
});

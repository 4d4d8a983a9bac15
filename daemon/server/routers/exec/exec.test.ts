// Exec against a real svcd, containerd and runc with the busybox image.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ExecInspect } from '../../../api/exec-types';
import {
  containerEvents,
  create,
  eventually,
  expectStatus,
  inspect,
  run,
  useEngine,
} from '../../../testing/containers-fixture';
import { openStream } from '../../testing/stream-client';

describe('exec', () => {
  const engine = useEngine();

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

  test('exec created before a restart of its container runs in the new run', async () => {
    const { svcd } = engine();
    const id = await run(svcd, { Cmd: ['sleep', '60'] });
    const body = { Cmd: ['sh', '-c', 'echo in $(cat /proc/1/cmdline | tr "\\0" " ")'], AttachStdout: true };
    const exec = expectStatus(await svcd.request('POST', `/containers/${id}/exec`, { body }), 201).json<{
      Id: string;
    }>().Id;
    const firstPid = (await inspect(svcd, id)).State.Pid;
    expectStatus(await svcd.request('POST', `/containers/${id}/restart?t=0`), 204);
    assert.notEqual((await inspect(svcd, id)).State.Pid, firstPid);
    const s = await openStream(svcd, 'POST', `/exec/${exec}/start`, true, { Detach: false, Tty: false });
    await s.ended;
    assert.equal(s.stdout, 'in sleep 60\n');
    assert.equal(
      expectStatus(await svcd.request('GET', `/exec/${exec}/json`), 200).json<ExecInspect>().ExitCode,
      0,
    );
  });

  test('execs back to back, one created while another runs: all output of each before its end', async () => {
    const { svcd } = engine();
    const id = await run(svcd, { Cmd: ['sleep', '60'] });
    const execOf = async (cmd: string) =>
      expectStatus(
        await svcd.request('POST', `/containers/${id}/exec`, {
          body: { Cmd: ['sh', '-c', cmd], AttachStdout: true, AttachStderr: true },
        }),
        201,
      ).json<{ Id: string }>().Id;
    const startOf = (exec: string) =>
      openStream(svcd, 'POST', `/exec/${exec}/start`, true, { Detach: false, Tty: false });
    const lines = Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join('');
    // Kept unstarted while the others run: its FIFOs are made, and another's are reused, meanwhile.
    const waiting = await execOf('echo last; echo gone >&2; exit 5');
    for (let i = 0; i < 4; i++) {
      const s = await startOf(await execOf(`seq 1 20000; echo run ${i} >&2; exit ${i}`));
      await s.ended;
      assert.equal(s.stdout, lines);
      assert.equal(s.stderr, `run ${i}\n`);
    }
    const s = await startOf(waiting);
    await s.ended;
    assert.equal(s.stdout, 'last\n');
    assert.equal(s.stderr, 'gone\n');
    assert.equal(
      expectStatus(await svcd.request('GET', `/exec/${waiting}/json`), 200).json<ExecInspect>().ExitCode,
      5,
    );
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

    // A terminal sends its size as it connects, which can be before the start: the first
    // program already sees it.
    const early = expectStatus(
      await svcd.request('POST', `/containers/${id}/exec`, {
        body: { Cmd: ['stty', 'size'], Tty: true, AttachStdout: true },
      }),
      201,
    ).json<{ Id: string }>().Id;
    expectStatus(await svcd.request('POST', `/exec/${early}/resize?h=41&w=132`), 201);
    const e = await openStream(svcd, 'POST', `/exec/${early}/start`, false, { Tty: true });
    await e.waitFor('41 132');
    await e.ended;
    expectStatus(await svcd.request('POST', `/exec/${early}/resize?h=20&w=70`), 409);
  });
  test('an exec ends with its container; one running over an svcd restart goes on, and new execs run', async () => {
    const { svcd } = engine();
    const id = await run(svcd, { Cmd: ['sleep', '60'] });
    const execOf = async (cmd: string) =>
      expectStatus(
        await svcd.request('POST', `/containers/${id}/exec`, {
          body: { Cmd: ['sh', '-c', cmd], AttachStdout: true },
        }),
        201,
      ).json<{ Id: string }>().Id;
    const startOf = (exec: string) =>
      openStream(svcd, 'POST', `/exec/${exec}/start`, true, { Detach: false, Tty: false });

    const across = await execOf('echo $$ > /across; sleep 60');
    expectStatus(await svcd.request('POST', `/exec/${across}/start`, { body: { Detach: true } }), 200);
    await eventually(
      () => svcd.request('GET', `/exec/${across}/json`).then((r) => r.json<ExecInspect>()),
      (e) => e.Running && e.Pid! > 0,
    );
    await svcd.stop();
    await svcd.start();
    const seen = await startOf(await execOf('kill -0 $(cat /across) && echo still running'));
    await seen.ended;
    assert.equal(seen.stdout, 'still running\n');

    const long = await execOf('echo up; sleep 60');
    const s = await startOf(long);
    await s.waitFor('up');
    expectStatus(await svcd.request('POST', `/containers/${id}/stop?t=0`), 204);
    await s.ended;
    const ended = expectStatus(await svcd.request('GET', `/exec/${long}/json`), 200).json<ExecInspect>();
    assert.equal(ended.Running, false);
    assert.equal(ended.ExitCode, 137);
  });
});

// Exec as Docker Engine 20.10 answers it: the same requests to svcd and to a private dockerd, the
// same bytes on the stream, the same exit codes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ExecInspect } from '../../../api/exec-types';
import { useEnginePair } from '../../../engine/containers/testing/engine-pair';
import { expectStatus } from '../../../engine/containers/testing/containers-fixture';
import { dockerdMissing } from '../../../testing/dockerd-peer';
import type { EngineApi } from '../../../testing/engine-client';
import { openStream } from '../../streams/testing/stream-client';

type Engine = EngineApi & { socket: string };

async function sleeper(engine: Engine): Promise<string> {
  const res = await engine.request('POST', '/containers/create', {
    body: { Image: 'busybox', Cmd: ['sleep', '600'], HostConfig: { NetworkMode: 'none' } },
  });
  const id = expectStatus(res, 201).json<{ Id: string }>().Id;
  expectStatus(await engine.request('POST', `/containers/${id}/start`), 204);
  return id;
}

async function execCreate(engine: Engine, container: string, body: Record<string, unknown>): Promise<string> {
  const res = await engine.request('POST', `/containers/${container}/exec`, { body });
  return expectStatus(res, 201).json<{ Id: string }>().Id;
}

const execInspect = async (engine: Engine, id: string) =>
  expectStatus(await engine.request('GET', `/exec/${id}/json`), 200).json<ExecInspect>();

/** Starts the exec attached; returns its whole output, split by stream when framed. */
async function execOutput(engine: Engine, id: string, start: Record<string, unknown>, framed: boolean) {
  const s = await openStream(engine, 'POST', `/exec/${id}/start`, framed, start);
  await s.ended;
  return { stdout: s.stdout, stderr: s.stderr };
}

describe('exec as Docker Engine 20.10 does it', { skip: dockerdMissing() }, () => {
  const engines = useEnginePair();
  const both = () => [engines().svcd, engines().dockerd] as const;

  test('a command that does not exist: 101, the runtime says why on stdout, ExitCode 126', async () => {
    for (const engine of both()) {
      const container = await sleeper(engine);
      for (const cmd of ['no-such-command', '/etc/passwd']) {
        const id = await execCreate(engine, container, {
          Cmd: [cmd],
          AttachStdout: true,
          AttachStderr: true,
        });
        const out = await execOutput(engine, id, { Detach: false, Tty: false }, true);
        assert.match(out.stdout, /^OCI runtime exec failed: exec failed: .*: unknown\r\n$/, out.stdout);
        assert.ok(out.stdout.includes(`exec: "${cmd}"`), out.stdout);
        assert.equal(out.stderr, '');
        const after = await execInspect(engine, id);
        assert.equal(after.ExitCode, 126);
        assert.equal(after.Running, false);
      }
    }
  });

  test('framing follows the start request: created with a TTY, started without, output is framed', async () => {
    for (const engine of both()) {
      const container = await sleeper(engine);
      const id = await execCreate(engine, container, {
        Cmd: ['sh', '-c', 'echo out; echo err >&2'],
        Tty: true,
        AttachStdout: true,
        AttachStderr: true,
      });
      // A TTY merges the streams into one terminal; the frames all say stdout.
      assert.deepEqual(await execOutput(engine, id, { Detach: false, Tty: false }, true), {
        stdout: 'out\r\nerr\r\n',
        stderr: '',
      });
    }
  });

  test('detach keys given at create end a TTY exec session; svcd keeps the process running', async () => {
    for (const engine of both()) {
      const container = await sleeper(engine);
      const id = await execCreate(engine, container, {
        Cmd: ['sh'],
        Tty: true,
        AttachStdin: true,
        AttachStdout: true,
        DetachKeys: 'ctrl-x,x',
      });
      const s = await openStream(engine, 'POST', `/exec/${id}/start`, false, { Detach: false, Tty: true });
      s.conn.write('echo $((40+2))\n');
      await s.waitFor('42');
      s.conn.write('\x18x');
      await s.ended;
      // dockerd closes the process's stdin as it detaches (its sh then exits); svcd leaves it be.
      if (engine === engines().svcd) assert.equal((await execInspect(engine, id)).Running, true);
    }
  });

  test('svcd also takes detach keys at the start, for clients that send them there', async () => {
    const { svcd } = engines();
    const container = await sleeper(svcd);
    const id = await execCreate(svcd, container, {
      Cmd: ['sh'],
      Tty: true,
      AttachStdin: true,
      AttachStdout: true,
    });
    const s = await openStream(svcd, 'POST', `/exec/${id}/start`, false, {
      Detach: false,
      Tty: true,
      DetachKeys: 'ctrl-a',
    });
    s.conn.write('echo $((40+2))\n');
    await s.waitFor('42');
    s.conn.write('\x01');
    await s.ended;
    assert.equal((await execInspect(svcd, id)).Running, true);
  });
});

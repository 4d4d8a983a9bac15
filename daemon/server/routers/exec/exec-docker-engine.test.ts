// Exec as Docker Engine 20.10 answers it: the same requests to svcd and to a private dockerd, the
// same bytes on the stream, the same exit codes; and the docker CLI's exec with detach keys.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { ExecInspect } from '../../../api/exec-types';
import type { ContainerInspect } from '../../../api/container-summary-types';
import { useDockerCliOn, type DockerCli } from '../../../testing/docker-cli';
import { useEnginePair } from '../../testing/engine-pair';
import { containerEvents, expectStatus } from '../../../testing/containers-fixture';
import { onTerminal } from '../../testing/terminal';
import { dockerdMissing } from '../../../testing/dockerd-peer';
import type { EngineApi } from '../../../testing/engine-client';
import { openStream } from '../../testing/stream-client';

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

/** The container's execs still running, by their command. */
async function runningExecs(engine: Engine, container: string): Promise<string[]> {
  const ids =
    expectStatus(await engine.request('GET', `/containers/${container}/json`), 200).json<ContainerInspect>()
      .ExecIDs ?? [];
  const execs = await Promise.all(ids.map((id) => execInspect(engine, id)));
  return execs.filter((e) => e.Running).map((e) => e.ProcessConfig.entrypoint);
}

/** The docker CLI with `config` as its config.json. */
function withConfig(cli: DockerCli, config: Record<string, unknown>): NodeJS.ProcessEnv {
  const env = cli.env();
  writeFileSync(join(env.DOCKER_CONFIG!, 'config.json'), JSON.stringify(config));
  return env;
}

describe('exec as Docker Engine 20.10 does it', { skip: dockerdMissing() }, () => {
  const engines = useEnginePair();
  const both = () => [engines().svcd, engines().dockerd] as const;
  const clis = new Map<string, DockerCli>([
    ['svcd', useDockerCliOn(() => engines().svcd.socket)],
    ['dockerd', useDockerCliOn(() => engines().dockerd.socket)],
  ]);
  const cliOf = (engine: Engine) => clis.get(engine === engines().svcd ? 'svcd' : 'dockerd')!;

  test('exec create answers only the Id', async () => {
    for (const engine of both()) {
      const container = await sleeper(engine);
      const res = await engine.request('POST', `/containers/${container}/exec`, { body: { Cmd: ['true'] } });
      assert.deepEqual(Object.keys(expectStatus(res, 201).json<object>()), ['Id']);
    }
  });

  test('docker exec -it: the detach keys of config.json, or ctrl-p,ctrl-q, leave the exec running', async () => {
    for (const engine of both()) {
      const container = await sleeper(engine);
      const cases = [
        { config: { detachKeys: 'ctrl-x,x' }, keys: '\x18x' },
        { config: {}, keys: '\x10\x11' },
      ];
      for (const [i, { config, keys }] of cases.entries()) {
        const r = await onTerminal(withConfig(cliOf(engine), config), `docker exec -it ${container} sh`, [
          { wait: '# ', type: 'echo $((40+2))\r' },
          { wait: '42\r\n', type: keys },
        ]);
        // The CLI reads the keys itself on a terminal, says so and exits 1, on either engine.
        assert.match(r.output, /read escape sequence/, r.output);
        assert.equal(r.code, 1, r.output);
        assert.deepEqual(await runningExecs(engine, container), Array(i + 1).fill('sh'));
      }
    }
  });

  test('docker exec -i without a terminal: svcd detaches on the keys, dockerd passes them on', async () => {
    for (const engine of both()) {
      const container = await sleeper(engine);
      const env = withConfig(cliOf(engine), { detachKeys: 'ctrl-x,x' });
      const child = spawn('docker', ['exec', '-i', container, 'sh'], { env });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const shown = (text: string) =>
        new Promise<void>((resolve) => {
          const check = () => output.includes(text) && resolve();
          child.stdout.on('data', check);
          child.stderr.on('data', check);
          check();
        });
      child.stdin.write('echo $((40+2))\n');
      await shown('42\n');
      child.stdin.write('\x18x');
      if (engine === engines().svcd) {
        // svcd reads the keys on any stream the client sent them for: the CLI's session ends.
        assert.equal(await exited, 0, output);
        assert.deepEqual(await runningExecs(engine, container), ['sh']);
        child.stdin.destroy();
      } else {
        // dockerd 20.10 reads them on a terminal only: here they are the shell's input.
        child.stdin.write('\necho still-$((6*7))\n');
        await shown('still-42');
        child.stdin.end();
        assert.equal(await exited, 0, output);
      }
    }
  });

  test('an attached exec start emits exec_create, exec_start, exec_die and no attach event', async () => {
    for (const engine of both()) {
      const container = await sleeper(engine);
      const since = Date.now() / 1000 - 1;
      const id = await execCreate(engine, container, { Cmd: ['echo', 'hi'], AttachStdout: true });
      assert.deepEqual(await execOutput(engine, id, { Detach: false, Tty: false }, true), {
        stdout: 'hi\n',
        stderr: '',
      });
      const actions = (await containerEvents(engine, container, since)).map((e) => e.Action);
      assert.deepEqual(actions.slice(actions.indexOf('exec_create: echo hi')), [
        'exec_create: echo hi',
        'exec_start: echo hi',
        'exec_die',
      ]);
    }
  });

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

// Container lifecycle answers clients match on, as Docker Engine 20.10 gives them: the same
// requests to svcd and to a private dockerd.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useEnginePair } from '../../testing/engine-pair';
import { expectStatus } from '../../../testing/containers-fixture';
import { dockerdMissing } from '../../../testing/dockerd-peer';
import type { EngineApi } from '../../../testing/engine-client';

type Engine = EngineApi;

async function create(
  engine: Engine,
  cmd: string[],
  hostConfig: Record<string, unknown> = {},
): Promise<string> {
  const res = await engine.request('POST', '/containers/create', {
    body: { Image: 'busybox', Cmd: cmd, HostConfig: { NetworkMode: 'none', ...hostConfig } },
  });
  return expectStatus(res, 201).json<{ Id: string }>().Id;
}

const start = async (engine: Engine, id: string) =>
  expectStatus(await engine.request('POST', `/containers/${id}/start`), 204);

async function wait(engine: Engine, id: string, condition?: string) {
  const query = condition ? `?condition=${condition}` : '';
  return expectStatus(await engine.request('POST', `/containers/${id}/wait${query}`), 200).json();
}

describe('container lifecycle as Docker Engine 20.10 answers it', { skip: dockerdMissing() }, () => {
  const engines = useEnginePair();
  const both = () => [engines().svcd, engines().dockerd] as const;

  test('wait returns at the first exit of a container its restart policy restarts', async () => {
    for (const engine of both()) {
      const always = { RestartPolicy: { Name: 'always' } };
      // not-running (the default), asked while it runs: its first run lasts long enough for the
      // wait to arrive on a loaded machine (0.3 s did not, beside three other suites).
      const a = await create(engine, ['sh', '-c', 'sleep 2; exit 2'], always);
      await start(engine, a);
      assert.deepEqual(await wait(engine, a), { StatusCode: 2, Error: null });
      // next-exit, asked before the start.
      const b = await create(engine, ['sh', '-c', 'exit 3'], always);
      const nextExit = wait(engine, b, 'next-exit');
      await start(engine, b);
      assert.deepEqual(await nextExit, { StatusCode: 3, Error: null });
      // removed: only the removal ends it, whatever the restarts.
      const removed = wait(engine, a, 'removed');
      expectStatus(await engine.request('DELETE', `/containers/${a}?force=1`), 204);
      // Killed by the removal while running again (137) or caught between runs (2).
      assert.ok([2, 137].includes(((await removed) as { StatusCode: number }).StatusCode));
      expectStatus(await engine.request('DELETE', `/containers/${b}?force=1`), 204);
    }
  });

  test('removing a running container without force: 409 saying to stop it or force', async () => {
    const { svcd, dockerd } = engines();
    for (const engine of [svcd, dockerd]) {
      const id = await create(engine, ['sleep', '600']);
      await start(engine, id);
      const res = expectStatus(await engine.request('DELETE', `/containers/${id}`), 409);
      assert.match(res.json<{ message: string }>().message, /^You cannot remove a running container /);
      expectStatus(await engine.request('DELETE', `/containers/${id}?force=1`), 204);
    }
    // The wording newer clients match on, beside 20.10's opening.
    const id = await create(svcd, ['sleep', '600']);
    await start(svcd, id);
    const res = await svcd.request('DELETE', `/containers/${id}`);
    assert.ok(res.text().includes('stop the container before removing or force remove'), res.text());
  });

  test("unpausing a container that is not paused: dockerd's message, as 409 (dockerd says 500)", async () => {
    const { svcd, dockerd } = engines();
    const answers = [];
    for (const engine of [svcd, dockerd]) {
      const id = await create(engine, ['sleep', '600']);
      await start(engine, id);
      const res = await engine.request('POST', `/containers/${id}/unpause`);
      answers.push({
        status: res.status,
        message: res.json<{ message: string }>().message.replace(id, 'ID'),
      });
    }
    assert.deepEqual(answers, [
      { status: 409, message: 'Container ID is not paused' },
      { status: 500, message: 'Container ID is not paused' },
    ]);
  });

  test("an unknown log driver at create: 400 with dockerd's plugin lookup message", async () => {
    for (const engine of both()) {
      const res = await engine.request('POST', '/containers/create', {
        body: { Image: 'busybox', HostConfig: { LogConfig: { Type: 'asdf', Config: {} } } },
      });
      assert.equal(res.status, 400, res.text());
      assert.equal(
        res.json<{ message: string }>().message,
        'error looking up logging plugin asdf: plugin "asdf" not found',
      );
    }
    // A driver Docker has built in but svcd does not is refused as such, not as a missing plugin.
    const res = await engines().svcd.request('POST', '/containers/create', {
      body: { Image: 'busybox', HostConfig: { LogConfig: { Type: 'syslog' } } },
    });
    assert.equal(res.status, 400);
    assert.equal(
      res.json<{ message: string }>().message,
      'logging driver "syslog" is not supported by this daemon; supported drivers: json-file, none',
    );
  });

  test('a committed image has ExposedPorts in Config and ContainerConfig only when it exposes some', async () => {
    for (const engine of both()) {
      for (const [exposed, expected] of [
        [undefined, undefined],
        [{}, undefined],
        [{ '80/tcp': {} }, { '80/tcp': {} }],
      ] as const) {
        const created = await engine.request('POST', '/containers/create', {
          body: { Image: 'busybox', Cmd: ['true'], ExposedPorts: exposed },
        });
        const id = expectStatus(created, 201).json<{ Id: string }>().Id;
        const committed = await engine.request('POST', `/commit?container=${id}`);
        const image = expectStatus(committed, 201).json<{ Id: string }>().Id;
        const inspect = expectStatus(await engine.request('GET', `/images/${image}/json`), 200).json<{
          Config: Record<string, unknown>;
          ContainerConfig: Record<string, unknown>;
        }>();
        for (const config of [inspect.Config, inspect.ContainerConfig]) {
          assert.equal('ExposedPorts' in config, expected !== undefined, JSON.stringify(config));
          assert.deepEqual(config.ExposedPorts, expected);
        }
      }
    }
  });
});

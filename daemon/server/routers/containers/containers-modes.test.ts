import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  create,
  eventually,
  expectStatus,
  inspect,
  run,
  useEngine,
} from '../../../testing/containers-fixture';

describe('shared namespaces, AutoRemove, old start bodies, failed starts', () => {
  const suite = useEngine();

  async function exitCode(id: string): Promise<number> {
    return (await suite().svcd.request('POST', `/containers/${id}/wait`)).json<{ StatusCode: number }>()
      .StatusCode;
  }

  test('container:<x> joins the network and PID namespaces of a running container', async () => {
    const { svcd } = suite();
    const target = await run(svcd, { Cmd: ['sh', '-c', 'echo marker > /tmp/m; sleep 300'] }, 'ns-target');
    const joined = await run(svcd, {
      Cmd: [
        'sh',
        '-c',
        'ps | grep -q "sleep 300" && test "$(readlink /proc/1/ns/net)" = "$(readlink /proc/self/ns/net)"',
      ],
      HostConfig: { NetworkMode: 'container:ns-target', PidMode: `container:${target}` },
    });
    assert.equal(await exitCode(joined), 0);
    expectStatus(await svcd.request('POST', `/containers/${target}/stop?t=0`), 204);
    // The target no longer runs: starting again is a conflict, as Docker says.
    expectStatus(await svcd.request('POST', `/containers/${joined}/start`), 409);
    expectStatus(
      await svcd.request('POST', '/containers/create', {
        body: { Image: 'busybox', HostConfig: { PidMode: 'container:nosuch' } },
      }),
      404,
    );
  });

  test('AutoRemove removes the container once it exits', async () => {
    const { svcd } = suite();
    const id = await run(svcd, { Cmd: ['true'], HostConfig: { AutoRemove: true } });
    const res = await eventually(
      () => svcd.request('GET', `/containers/${id}/json`),
      (r) => r.status === 404,
    );
    assert.equal(res.status, 404);
  });

  test('AutoRemove removes a container whose start failed, on start and on restart', async () => {
    const { svcd } = suite();
    for (const action of ['start', 'restart']) {
      const id = await create(svcd, { Cmd: ['/no/such/binary'], HostConfig: { AutoRemove: true } });
      const removed = svcd.request('POST', `/containers/${id}/wait?condition=removed`);
      expectStatus(await svcd.request('POST', `/containers/${id}/${action}`), 400);
      assert.equal((await removed).json<{ StatusCode: number }>().StatusCode, 127);
      expectStatus(await svcd.request('GET', `/containers/${id}/json`), 404);
    }
  });

  test('start: a HostConfig body is taken up to 1.23 and refused from 1.24', async () => {
    const { svcd } = suite();
    const id = await create(svcd, { Cmd: ['sh', '-c', 'test "$(ls /sys/class/net | wc -l)" -gt 1'] });
    expectStatus(
      await svcd.request('POST', `/v1.24/containers/${id}/start`, { body: { NetworkMode: 'host' } }),
      400,
    );
    expectStatus(
      await svcd.request('POST', `/v1.23/containers/${id}/start`, { body: { NetworkMode: 'host' } }),
      204,
    );
    assert.equal(await exitCode(id), 0);
    assert.equal((await inspect(svcd, id)).HostConfig.NetworkMode, 'host');
  });

  test('a command that cannot run: 400, exit code 127, the error in State', async () => {
    const { svcd } = suite();
    const id = await create(svcd, { Cmd: ['/no/such/binary'] });
    const res = expectStatus(await svcd.request('POST', `/containers/${id}/start`), 400);
    assert.match(res.json<{ message: string }>().message, /no such file|not found/i);
    const state = (await inspect(svcd, id)).State;
    assert.equal(state.ExitCode, 127);
    assert.equal(state.Status, 'created');
    assert.match(state.Error, /no such file|not found/i);
  });

  test('an image used by a container cannot be deleted without force', async () => {
    const { svcd } = suite();
    await create(svcd, {});
    const res = await svcd.request('DELETE', `/images/${suite().imageId}`);
    assert.equal(res.status, 409, res.text());
  });
});

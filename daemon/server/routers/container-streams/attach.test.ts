// Attach against a real svcd, containerd and runc with the busybox image.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WebSocket } from 'ws';
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

describe('attach', () => {
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
  test('attach/ws: stdin in and output out as binary frames (1.28+), text before', async () => {
    const { svcd } = engine();
    const id = await run(svcd, { Cmd: ['cat'], OpenStdin: true });
    for (const [version, binary] of [
      ['1.41', true],
      ['1.27', false],
    ] as const) {
      const ws = new WebSocket(
        `ws+unix://${svcd.socket}:/v${version}/containers/${id}/attach/ws?stream=1&stdin=1&stdout=1`,
      );
      const got = new Promise<{ text: string; binary: boolean }>((resolve, reject) => {
        ws.once('message', (data: Buffer, isBinary: boolean) =>
          resolve({ text: data.toString(), binary: isBinary }),
        );
        ws.once('error', reject);
        ws.once('close', (code: number) => reject(new Error(`closed (${code}) before any output`)));
      });
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      ws.send(`via ws ${version}\n`);
      assert.deepEqual(await got, { text: `via ws ${version}\n`, binary });
      ws.close();
    }
    expectStatus(await svcd.request('GET', `/containers/${id}/attach/ws?stream=1`), 400);
  });
});

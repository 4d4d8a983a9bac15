// json-file containers log through the shim's logging binary: their output outlives svcd kills,
// attach follows the file (also after an svcd restart), and the logger goes with the task.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import {
  create,
  eventually,
  expectStatus,
  inspect,
  run,
  useEngine,
} from '../../../testing/containers-fixture';
import { openStream } from '../../testing/stream-client';
import type { SvcdInstance } from '../../../testing/svcd-harness';

/** PIDs of the logging binaries the shim runs for this container (CONTAINER_ID in their env). */
function loggersOf(id: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/comm`, 'utf8').trim() !== 'svc-json-logger') continue;
      if (readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(`CONTAINER_ID=${id}`))
        pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function logText(svcd: SvcdInstance, id: string, tty = false): Promise<string> {
  const s = await openStream(svcd, 'GET', `/containers/${id}/logs?stdout=1&stderr=1`, !tty);
  await s.ended;
  return s.stdout;
}

describe('the shim writes the json-file log', () => {
  const engine = useEngine();

  test('every line printed survives svcd killed twice while the container prints', async () => {
    const { svcd } = engine();
    // 120,000 lines in bursts: svcd is killed in the middle of them.
    const id = await run(svcd, {
      Cmd: ['sh', '-c', 'for r in 0 1 2 3 4 5; do seq $((r*20000+1)) $((r*20000+20000)); sleep 0.5; done'],
    });
    assert.equal(loggersOf(id).length, 1, 'one logging binary runs beside the container');
    const { LogPath } = await inspect<{ LogPath: string }>(svcd, id);
    for (let kill = 0; kill < 2; kill++) {
      await eventually(
        async () => statSync(LogPath).size,
        (size) => size > 0,
      );
      await svcd.kill9();
      await svcd.start();
    }
    expectStatus(await svcd.request('POST', `/containers/${id}/wait`), 200);
    const lines = (await logText(svcd, id)).split('\n');
    assert.equal(lines.pop(), '');
    assert.equal(lines.length, 120000);
    const gap = lines.findIndex((l, i) => l !== String(i + 1));
    assert.equal(gap, -1, `line ${gap + 1} is ${JSON.stringify(lines[gap])}`);
    assert.deepEqual(loggersOf(id), [], 'the logger exits with the task');
  });

  test('attach after an svcd restart follows the running container; logs -f ends at its exit', async () => {
    const { svcd } = engine();
    const id = await run(svcd, {
      Cmd: [
        'sh',
        '-c',
        'trap "echo done >&2; exit 0" TERM; i=0; while :; do echo "n $i"; i=$((i+1)); sleep 0.1; done',
      ],
    });
    await svcd.kill9();
    await svcd.start();
    const attached = await openStream(
      svcd,
      'POST',
      `/containers/${id}/attach?stream=1&stdout=1&stderr=1`,
      true,
    );
    const follow = await openStream(svcd, 'GET', `/containers/${id}/logs?follow=1&stdout=1&stderr=1`, true);
    await attached.waitFor('\n');
    expectStatus(await svcd.request('POST', `/containers/${id}/stop?t=5`), 204);
    await attached.ended;
    await follow.ended;
    assert.equal(attached.stderr, 'done\n');
    assert.match(attached.stdout, /^(n \d+\n)+$/);
    const numbers = follow.stdout.trimEnd().split('\n');
    assert.ok(
      numbers.every((l, i) => l === `n ${i}`),
      'logs -f: every line, in order, across the restart',
    );
    assert.ok(follow.stdout.endsWith(attached.stdout), 'attach saw the last lines');
    assert.equal(follow.stderr, 'done\n');
  });

  test('tty and stdin containers keep svcd copying their output; log driver none writes no file', async () => {
    const { svcd } = engine();
    const tty = await create(svcd, { Cmd: ['echo', 'on a tty'], Tty: true });
    const s = await openStream(svcd, 'POST', `/containers/${tty}/attach?stream=1&stdout=1`, false);
    expectStatus(await svcd.request('POST', `/containers/${tty}/start`), 204);
    await s.ended;
    assert.equal(s.stdout, 'on a tty\r\n');
    assert.equal(await logText(svcd, tty, true), 'on a tty\r\n');

    const none = await create(svcd, {
      Cmd: ['echo', 'nowhere'],
      HostConfig: { LogConfig: { Type: 'none' } },
    });
    const a = await openStream(svcd, 'POST', `/containers/${none}/attach?stream=1&stdout=1`, true);
    expectStatus(await svcd.request('POST', `/containers/${none}/start`), 204);
    await a.ended;
    assert.equal(a.stdout, 'nowhere\n');
    const logs = await svcd.request('GET', `/containers/${none}/logs?stdout=1`);
    assert.equal(logs.status, 501);
    assert.equal((await inspect<{ LogPath: string }>(svcd, none)).LogPath, '', 'no log file for driver none');
  });
});

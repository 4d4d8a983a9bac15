// The real docker CLI against svcd for the streaming commands: run (attached, -it through a
// pseudo-terminal made by script(1)), exec -it, logs -f, attach, stats and events.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { useEngine } from '../../../testing/containers-fixture';
import { onTerminal } from '../../testing/terminal';

const execFileAsync = promisify(execFile);

describe('docker CLI streams against svcd', () => {
  const suite = useEngine();
  const config = mkdtempSync(join(tmpdir(), 'docker-cfg-'));
  after(() => rmSync(config, { recursive: true, force: true }));
  let env: NodeJS.ProcessEnv;
  let docker: (...args: string[]) => Promise<string>;
  before(() => {
    env = { ...process.env, DOCKER_HOST: `unix://${suite().svcd.socket}`, DOCKER_CONFIG: config };
    docker = async (...args) =>
      (await execFileAsync('docker', args, { env, encoding: 'utf8' })).stdout.trim();
  });

  test('docker run --rm busybox echo hi', async () => {
    assert.equal(await docker('run', '--rm', 'busybox', 'echo', 'hi'), 'hi');
    assert.equal(await docker('ps', '-aq'), '');
  });

  test('docker run -it busybox sh, typed on a terminal', async () => {
    const r = await onTerminal(env, 'docker run -it --name tty busybox sh', [
      { wait: '# ', type: 'echo typed-$((6*7))\r' },
      { wait: 'typed-42', type: 'exit 5\r' },
    ]);
    assert.match(r.output, /typed-42/);
    assert.equal(r.code, 5, r.output);
  });

  test('docker exec -it and docker attach', async () => {
    await docker('run', '-d', '--name', 'web', 'busybox', 'sh', '-c', 'sleep 2; echo attached-out; sleep 1');
    const attached = docker('attach', 'web');
    const r = await onTerminal(env, 'docker exec -it web sh', [
      { wait: '# ', type: 'echo in-exec-$((2+3))\r' },
      { wait: 'in-exec-5', type: 'exit\r' },
    ]);
    assert.match(r.output, /in-exec-5/);
    assert.equal(r.code, 0, r.output);
    assert.equal(await attached, 'attached-out');
  });

  test('docker logs -f --tail 10 -t', async () => {
    await docker('run', '-d', '--name', 'counter', 'busybox', 'sh', '-c', 'seq 1 20; sleep 1; echo late');
    const out = (await docker('logs', '-f', '--tail', '10', '-t', 'counter')).split('\n');
    assert.deepEqual(
      out.map((l) => l.replace(/^\S+ /, '')),
      ['11', '12', '13', '14', '15', '16', '17', '18', '19', '20', 'late'],
    );
    assert.match(out[0], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z 11$/);
  });

  test('docker stats --no-stream and docker events --since --until', async () => {
    const since = Math.floor(Date.now() / 1000) - 1;
    await docker('run', '-d', '--name', 'busy', 'busybox', 'sleep', '60');
    const stats = await docker(
      'stats',
      '--no-stream',
      '--format',
      '{{.Name}} {{.PIDs}} {{.MemUsage}}',
      'busy',
    );
    assert.match(stats, /^busy 1 [\d.]+[KMG]i?B \/ [\d.]+[KMG]i?B$/);
    await docker('stop', '-t', '0', 'busy');
    const until = Math.ceil(Date.now() / 1000) + 1;
    const events = await docker(
      'events',
      '--since',
      String(since),
      '--until',
      String(until),
      '--filter',
      'container=busy',
      '--format',
      '{{.Action}}',
    );
    // sleep as PID 1 ignores SIGTERM: stop -t 0 kills twice (15 then 9), as with dockerd.
    assert.deepEqual(events.split('\n'), ['create', 'start', 'kill', 'kill', 'die', 'stop']);
  });
});

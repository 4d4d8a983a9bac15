// The real docker CLI against svcd: the containers surface. The attached streams (`docker run`
// without -d, logs, exec) are driven in docker-cli-streams.test.ts.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { useEngine } from '../../../testing/containers-fixture';
import { useDockerCli } from '../../../testing/docker-cli';

const run = promisify(execFile);

describe('docker CLI against svcd', () => {
  const suite = useEngine();
  const { docker, env, scratch } = useDockerCli(suite);

  test('run -d, create + start, ps -a with filters, wait', async () => {
    const id = await docker('run', '-d', '--name', 'web', '--label', 'role=front', 'busybox', 'sleep', '300');
    assert.match(id, /^[0-9a-f]{64}$/);
    await docker('create', '--name', 'job', 'busybox', 'sh', '-c', 'exit 6');
    await docker('start', 'job');
    assert.equal(await docker('wait', 'job'), '6');
    assert.equal(await docker('ps', '--format', '{{.Names}}'), 'web');
    assert.equal(
      await docker('ps', '-a', '--filter', 'exited=6', '--format', '{{.Names}} {{.Status}}').then((s) =>
        s.replace(/ .*/, ''),
      ),
      'job',
    );
    assert.match(
      await docker('ps', '-a', '--filter', 'status=exited', '--format', '{{.Status}}'),
      /^Exited \(6\)/,
    );
    assert.equal(await docker('ps', '--filter', 'label=role=front', '--format', '{{.Names}}'), 'web');
    assert.match(await docker('ps', '--format', '{{.Status}}'), /^Up /);
  });

  test('stop, start, restart, kill -s, pause and unpause', async () => {
    await docker(
      'run',
      '-d',
      '--name',
      'life',
      'busybox',
      'sh',
      '-c',
      "trap 'exit 3' USR1; while :; do sleep 0.1; done",
    );
    await docker('stop', '-t', '1', 'life');
    assert.equal(await docker('inspect', '-f', '{{.State.Status}}', 'life'), 'exited');
    await docker('start', 'life');
    await docker('restart', '-t', '0', 'life');
    assert.equal(
      await docker('inspect', '-f', '{{.State.Status}} {{.State.Running}}', 'life'),
      'running true',
    );
    await new Promise((r) => setTimeout(r, 300));
    await docker('kill', '-s', 'USR1', 'life');
    assert.equal(await docker('wait', 'life'), '3');
    await docker('start', 'life');
    await docker('pause', 'life');
    assert.equal(await docker('inspect', '-f', '{{.State.Status}} {{.State.Paused}}', 'life'), 'paused true');
    await docker('unpause', 'life');
    assert.equal(await docker('inspect', '-f', '{{.State.Status}}', 'life'), 'running');
  });

  test('rename, update, inspect, top', async () => {
    await docker('run', '-d', '--name', 'old', 'busybox', 'sleep', '300');
    await docker('rename', 'old', 'new');
    await docker('update', '--memory', '64m', '--memory-swap', '128m', '--restart', 'on-failure:2', 'new');
    assert.equal(
      await docker(
        'inspect',
        '-f',
        '{{.Name}} {{.HostConfig.Memory}} {{.HostConfig.RestartPolicy.Name}}',
        'new',
      ),
      '/new 67108864 on-failure',
    );
    const top = await docker('top', 'new');
    assert.match(top, /PID/);
    assert.match(top, /sleep 300/);
  });

  test('diff, export, cp both ways, commit', async () => {
    await docker('run', '-d', '--name', 'fs', 'busybox', 'sh', '-c', 'echo hello > /tmp/made; sleep 300');
    await new Promise((r) => setTimeout(r, 300));
    const dir = scratch('docker-cp-');
    writeFileSync(join(dir, 'local.txt'), 'from host');
    await docker('cp', join(dir, 'local.txt'), 'fs:/tmp/');
    await docker('cp', 'fs:/tmp/made', join(dir, 'made'));
    assert.equal(readFileSync(join(dir, 'made'), 'utf8'), 'hello\n');
    const diff = (await docker('diff', 'fs')).split('\n');
    assert.ok(
      diff.includes('A /tmp/made') && diff.includes('A /tmp/local.txt') && diff.includes('C /tmp'),
      diff.join(','),
    );
    const tarList = (
      await run('sh', ['-c', `DOCKER_HOST=unix://${suite().svcd.socket} docker export fs | tar -t`], {
        encoding: 'utf8',
        maxBuffer: 1 << 24,
      })
    ).stdout;
    assert.ok(tarList.split('\n').includes('tmp/local.txt'));
    await docker('commit', '-c', 'ENV FROM_COMMIT=1', 'fs', 'snap:1');
    await docker(
      'run',
      '-d',
      '--name',
      'fromsnap',
      'snap:1',
      'sh',
      '-c',
      'test "$(cat /tmp/local.txt)" = "from host" && test "$FROM_COMMIT" = 1',
    );
    assert.equal(await docker('wait', 'fromsnap'), '0');
  });

  test('rm -f and container prune', async () => {
    await docker('run', '-d', '--name', 'doomed', 'busybox', 'sleep', '300');
    await assert.rejects(docker('rm', 'doomed'), /cannot remove a running container/);
    await docker('rm', '-f', 'doomed');
    await docker('create', '--name', 'stale', 'busybox');
    const pruned = await docker('container', 'prune', '-f');
    assert.match(pruned, /Deleted Containers/);
    assert.match(pruned, /Total reclaimed space/);
    assert.equal(await docker('ps', '-a', '--filter', 'name=stale', '--format', '{{.Names}}'), '');
  });

  test('run --rm of a command that cannot start: exits at once with 127, the container gone', async () => {
    // The CLI waits for condition=removed before it starts: a container left behind hangs it.
    // The kill bound only turns that hang into a failure.
    for (const [name, cmd] of [
      ['rm-nobin', ['/no/such/binary']],
      ['rm-nopath', ['no-such-command-anywhere']],
    ] as const) {
      const failed = await run('docker', ['run', '--rm', '--name', name, 'busybox', ...cmd], {
        env: env(),
        timeout: 60_000,
      }).then(
        () => assert.fail('the run succeeded'),
        (err: { code: number | string; killed: boolean; stderr: string }) => err,
      );
      assert.equal(failed.killed, false, `docker run --rm ${cmd[0]} hung`);
      assert.equal(failed.code, 127, failed.stderr);
      assert.match(failed.stderr, /no such file|not found/);
      assert.equal(await docker('ps', '-a', '--filter', `name=${name}`, '--format', '{{.Names}}'), '');
    }
  });
});

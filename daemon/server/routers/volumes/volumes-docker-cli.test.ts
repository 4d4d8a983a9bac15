// The docker CLI and docker-compose against svcd's volumes, as a user types them.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { useEngine } from '../../../testing/containers-fixture';
import { useDockerCli } from '../../../testing/docker-cli';

const run = promisify(execFile);

describe('docker CLI and docker-compose with volumes', () => {
  const suite = useEngine();
  const { docker, env, scratch } = useDockerCli(suite);

  test('volume create, ls, inspect, rm, prune', async () => {
    assert.equal(await docker('volume', 'create', '--label', 'team=a', 'cli-vol'), 'cli-vol');
    await docker(
      'volume',
      'create',
      '-d',
      'local',
      '-o',
      'type=tmpfs',
      '-o',
      'device=tmpfs',
      '-o',
      'o=size=1m',
      'cli-tmp',
    );
    assert.match(
      await docker('volume', 'ls', '--format', '{{.Driver}} {{.Name}}'),
      /local cli-tmp\nlocal cli-vol/,
    );
    assert.equal(await docker('volume', 'ls', '-q', '--filter', 'label=team=a'), 'cli-vol');
    assert.equal(
      await docker('volume', 'inspect', '-f', '{{.Labels.team}} {{.Scope}}', 'cli-vol'),
      'a local',
    );
    assert.equal(await docker('volume', 'inspect', '-f', '{{.Options.type}}', 'cli-tmp'), 'tmpfs');
    await assert.rejects(docker('volume', 'inspect', 'nope-vol'), /no such volume/i);
    assert.equal(await docker('volume', 'rm', 'cli-tmp'), 'cli-tmp');
    await docker('volume', 'rm', '-f', 'cli-tmp');
    const pruned = await docker('volume', 'prune', '-f');
    assert.match(pruned, /Deleted Volumes:\ncli-vol/);
    assert.match(pruned, /Total reclaimed space: /);
    assert.equal(await docker('volume', 'ls', '-q'), '');
  });

  test('run -v, --mount type=volume and --volumes-from; rm of a volume in use names the container', async () => {
    await docker('run', '--rm', '-v', 'shared-vol:/data', 'busybox', 'sh', '-c', 'echo one > /data/f');
    assert.equal(
      await docker(
        'run',
        '--rm',
        '--mount',
        'type=volume,source=shared-vol,target=/d,readonly',
        'busybox',
        'cat',
        '/d/f',
      ),
      'one',
    );
    const holder = await docker('create', '--name', 'holder', '-v', 'shared-vol:/data', 'busybox', 'true');
    assert.equal(
      await docker('run', '--rm', '--volumes-from', 'holder:ro', 'busybox', 'cat', '/data/f'),
      'one',
    );
    await assert.rejects(
      docker('volume', 'rm', 'shared-vol'),
      new RegExp(`volume is in use - \\[${holder}\\]`),
    );
    await docker('rm', 'holder');
    assert.equal(await docker('volume', 'rm', 'shared-vol'), 'shared-vol');
  });

  test('docker-compose: a named volume made by up, kept by down, removed by down -v', async () => {
    const dir = scratch('compose-vol-');
    // Networks are not served yet here, so the service runs without one.
    writeFileSync(
      join(dir, 'docker-compose.yml'),
      [
        'version: "2.4"',
        'services:',
        '  writer:',
        '    image: busybox',
        '    network_mode: none',
        '    command: sh -c "echo from-compose >> /data/log; cat /data/log"',
        '    volumes:',
        '      - store:/data',
        'volumes:',
        '  store: {}',
        '',
      ].join('\n'),
    );
    const compose = async (...args: string[]) =>
      (await run('docker-compose', ['-p', 'volproj', ...args], { env: env(), cwd: dir, encoding: 'utf8' }))
        .stdout;
    await compose('up', '--no-color');
    assert.equal(
      await docker(
        'volume',
        'inspect',
        '-f',
        '{{index .Labels "com.docker.compose.project"}}',
        'volproj_store',
      ),
      'volproj',
    );
    await compose('down');
    assert.equal(await docker('volume', 'ls', '-q', '--filter', 'name=volproj_store'), 'volproj_store');
    const second = await compose('up', '--no-color');
    assert.match(second, /from-compose\s+\S*\s*\|\s*from-compose/);
    await compose('down', '-v');
    assert.equal(await docker('volume', 'ls', '-q', '--filter', 'name=volproj_store'), '');
  });
});

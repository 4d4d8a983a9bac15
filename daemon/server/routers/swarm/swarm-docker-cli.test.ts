// The docker CLI's swarm commands, the same scenario against svcd and against Docker Engine
// 20.10 (when dockerd is installed), so that any difference in what the CLI shows is seen:
// swarm init/join-token/update/unlock-key/leave, node ls/inspect/update, service
// create/ps/scale/update --image/rollback/logs/rm, secret and config create/ls/inspect/rm.
// Known difference: without IPVS in this kernel, dockerd's ingress port does not answer
// (COMPAT-NOTES), so only svcd's is fetched.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { useEngine } from '../../../testing/containers-fixture';
import { useDockerCli, useDockerCliOn, type DockerCli } from '../../../testing/docker-cli';
import { served, webCommand } from '../../../testing/host-http';
import { importBusybox } from '../../../testing/busybox-image';
import {
  destroyDockerd,
  dockerdMissing,
  startDockerd,
  type DockerdPeer,
} from '../../../testing/dockerd-peer';
import { pollUntil } from '../../../testing/poll';
import { freePort } from '../../../testing/distribution';

/** Polls `docker ARGS` until its output satisfies `check`; a timeout names the last answer. */
async function until(cli: DockerCli, what: string, check: (out: string) => boolean, ...args: string[]) {
  let last = '';
  try {
    return await pollUntil(
      what,
      async () => {
        const out = await cli.docker(...args).catch((err: Error) => `(failed) ${err.message}`);
        last = out;
        return check(out) ? out : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    );
  } catch (err) {
    throw new Error(
      `${(err as Error).message}; docker ${args.join(' ')} last printed: ${JSON.stringify(last)}`,
      { cause: err },
    );
  }
}

const stackFile = `version: "3.8"
services:
  api:
    image: busybox
    command: ["sh", "-c", "mkdir -p /www; cat /run/secrets/pw /cfg > /www/index.html; exec httpd -f -p 80 -h /www"]
    secrets: [pw]
    configs: [{ source: cfg, target: /cfg }]
    networks: [back]
  client:
    image: busybox
    command: ["sleep", "3600"]
    networks: [back]
networks:
  back:
    driver: overlay
secrets:
  pw:
    file: ./pw.txt
configs:
  cfg:
    file: ./cfg.txt
`;

const lines = (out: string) => out.split('\n').filter(Boolean).sort();

/** The scenario; `answers` says whether published ports answer on this engine. */
async function scenario(cli: DockerCli, answers: boolean): Promise<void> {
  const { docker } = cli;
  await assert.rejects(docker('node', 'ls'), /not a swarm manager/);
  assert.match(
    await docker('swarm', 'init', '--advertise-addr', '127.0.0.1'),
    /Swarm initialized: current node \(\w+\) is now a manager/,
  );
  assert.match(await docker('swarm', 'join-token', '-q', 'worker'), /^SWMTKN-1-\w+-\w+$/);
  assert.match(
    await docker('swarm', 'join-token', 'manager'),
    /docker swarm join --token SWMTKN-1-\S+ 127\.0\.0\.1:2377/,
  );
  assert.match(
    await docker('node', 'ls', '--format', '{{.Self}} {{.Status}} {{.Availability}} {{.ManagerStatus}}'),
    /^true Ready Active Leader$/,
  );
  // `self` is the CLI's word for inspect and ps only: update takes the ID (dockerd alike).
  const self = await docker('info', '--format', '{{.Swarm.NodeID}}');
  await assert.rejects(docker('node', 'update', '--label-add', 'zone=a', 'self'), /node self not found/);
  await docker('node', 'update', '--label-add', 'zone=a', self);
  assert.equal(
    await docker('node', 'inspect', 'self', '--format', '{{.Spec.Role}} {{json .Spec.Labels}}'),
    'manager {"zone":"a"}',
  );
  await assert.rejects(docker('node', 'demote', self), /last manager/);

  const dir = cli.scratch('swarm-cli-');
  writeFileSync(join(dir, 'secret'), 'top-secret\n');
  writeFileSync(join(dir, 'config'), 'setting=1\n');
  await docker('secret', 'create', 'site-secret', join(dir, 'secret'));
  await assert.rejects(docker('secret', 'create', 'site-secret', join(dir, 'secret')), /already exists/);
  assert.equal(await docker('secret', 'ls', '--format', '{{.Name}}'), 'site-secret');
  assert.equal(
    await docker('secret', 'inspect', 'site-secret', '--format', '{{.Spec.Name}} {{.Spec.Data}}'),
    'site-secret []',
  );
  await docker('config', 'create', 'site-config', join(dir, 'config'));
  assert.equal(await docker('config', 'ls', '--format', '{{.Name}}'), 'site-config');

  const port = await freePort();
  await docker('tag', 'busybox', 'busybox:v2');
  await docker(
    'service',
    'create',
    '-d',
    '--name',
    'web',
    '--replicas',
    '2',
    '-p',
    `${port}:80`,
    '--no-resolve-image',
    '--stop-grace-period',
    '1s',
    '--secret',
    'site-secret',
    '--config',
    'source=site-config,target=/site.conf',
    'busybox',
    'sh',
    '-c',
    `echo hello-from-task; ${webCommand('swarm-web')}`,
  );
  await until(
    cli,
    'web at 2/2',
    (o) => o === '2/2',
    'service',
    'ls',
    '--filter',
    'name=web',
    '--format',
    '{{.Replicas}}',
  );
  assert.equal(
    await docker('service', 'ls', '--format', '{{.Name}} {{.Mode}} {{.Ports}}'),
    `web replicated *:${port}->80/tcp`,
  );
  assert.deepEqual(
    lines(
      await docker('service', 'ps', 'web', '--format', '{{.Name}} {{.DesiredState}} {{.CurrentState}}'),
    ).map((l) => l.split(' ').slice(0, 3).join(' ')),
    ['web.1 Running Running', 'web.2 Running Running'],
  );
  const containers = lines(
    await docker('ps', '--filter', 'label=com.docker.swarm.service.name=web', '--format', '{{.Names}}'),
  );
  assert.equal(containers.length, 2);
  for (const name of containers) assert.match(name, /^web\.[12]\.[0-9a-z]{25}$/);
  const task = containers[0];
  assert.equal(
    await docker('exec', task, 'cat', '/run/secrets/site-secret', '/site.conf'),
    'top-secret\nsetting=1',
  );
  if (answers) assert.match(await served('127.0.0.1', String(port)), /swarm-web/);

  await docker('service', 'scale', '-d', 'web=3');
  await until(
    cli,
    'web at 3/3',
    (o) => o === '3/3',
    'service',
    'ls',
    '--filter',
    'name=web',
    '--format',
    '{{.Replicas}}',
  );
  await docker('service', 'update', '-d', '--no-resolve-image', '--image', 'busybox:v2', 'web');
  /** Waits until the three running tasks have `image` and the update's state is `state`. */
  const rolledTo = async (image: string, state: string) => {
    await until(
      cli,
      `the tasks on ${image}`,
      (o) => lines(o).join(' ') === [image, image, image].join(' '),
      ...['service', 'ps', 'web', '--filter', 'desired-state=running', '--format', '{{.Image}}'],
    );
    await until(
      cli,
      state,
      (o) => o === state,
      'service',
      'inspect',
      'web',
      '--format',
      '{{.UpdateStatus.State}}',
    );
  };
  await rolledTo('busybox:v2', 'completed');
  await docker('service', 'rollback', '-d', 'web');
  await rolledTo('busybox:latest', 'rollback_completed');
  const logs = await docker('service', 'logs', '--no-trunc', 'web');
  assert.match(logs, /^web\.\d\.[0-9a-z]{25}@\S+ +\| hello-from-task$/m);

  await docker('service', 'rm', 'web');
  await until(
    cli,
    'the task containers gone',
    (o) => o === '',
    'ps',
    '-a',
    '--filter',
    'label=com.docker.swarm.service.name=web',
    '-q',
  );
  await docker('secret', 'rm', 'site-secret');
  await docker('config', 'rm', 'site-config');
  assert.equal(await docker('secret', 'ls', '-q'), '');

  assert.match(await docker('swarm', 'update', '--autolock=true'), /SWMKEY-1-/);
  assert.match(await docker('swarm', 'unlock-key', '-q'), /^SWMKEY-1-\S+$/);
  await assert.rejects(docker('swarm', 'leave'), /--force/);
  assert.equal(await docker('swarm', 'leave', '--force'), 'Node left the swarm.');
}

describe('swarm through the docker CLI', () => {
  describe('against svcd', () => {
    after(() => suite().svcd.request('POST', '/swarm/leave?force=true'));
    const suite = useEngine();
    const cli = useDockerCli(suite);
    test('the scenario', { timeout: 300_000 }, () => scenario(cli, true));

    test('stack deploy -c: two services on an overlay network, a secret, a config; stack rm', async () => {
      const { docker } = cli;
      await docker('swarm', 'init', '--advertise-addr', '127.0.0.1');
      const dir = cli.scratch('swarm-stack-');
      writeFileSync(join(dir, 'pw.txt'), 'pw\n');
      writeFileSync(join(dir, 'cfg.txt'), 'cfg\n');
      writeFileSync(join(dir, 'stack.yml'), stackFile);
      const deployed = await docker(
        'stack',
        'deploy',
        '--resolve-image',
        'never',
        '-c',
        join(dir, 'stack.yml'),
        'demo',
      );
      assert.match(deployed, /Creating network demo_back/);
      assert.equal(
        await docker('network', 'inspect', 'demo_back', '--format', '{{.Driver}} {{.Scope}}'),
        'overlay swarm',
      );
      const client = await until(
        cli,
        'the client task',
        (o) => o !== '',
        ...['ps', '-q', '--filter', 'label=com.docker.swarm.service.name=demo_client'],
      );
      // The client reaches the api by its service name and by its compose name (an alias).
      const fetched = await until(
        cli,
        'the api through its names',
        (o) => o === 'pw\ncfg\npw\ncfg',
        ...[
          'exec',
          client,
          'sh',
          '-c',
          'timeout 5 wget -q -O- http://api/; timeout 5 wget -q -O- http://demo_api/',
        ],
      );
      assert.equal(fetched, 'pw\ncfg\npw\ncfg');
      assert.match(await docker('stack', 'rm', 'demo'), /Removing network demo_back/);
      await until(
        cli,
        'the stack gone',
        (o) => o === '',
        'ps',
        '-aq',
        '--filter',
        'label=com.docker.stack.namespace=demo',
      );
      assert.equal(await docker('secret', 'ls', '-q'), '');
      await docker('swarm', 'leave', '--force');
    });
  });

  describe('against Docker Engine 20.10', { skip: dockerdMissing() }, () => {
    let peer: DockerdPeer | undefined;
    before(async () => {
      peer = await startDockerd();
      await importBusybox(peer);
    });
    after(async () => {
      await peer?.leaveSwarm();
      await destroyDockerd(peer);
    });
    const cli = useDockerCliOn(() => peer!.socket);
    test('the scenario', { timeout: 300_000 }, () => scenario(cli, false));
  });
});

// Debian's docker-py (python3-docker) driving svcd's swarm through its collections: swarm,
// nodes, secrets, configs and services, with real task containers behind the service.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { repoRoot } from '../../../lib/product';
import { useEngine } from '../../../testing/containers-fixture';
import { httpGet, webCommand } from '../../../testing/host-http';
import { freePort } from '../../../testing/distribution';

const run = promisify(execFile);
const python = '/usr/bin/python3';
const script = join(repoRoot(), 'daemon/server/testing/docker-py-swarm.py');
const dockerPyMissing = () =>
  spawnSync(python, ['-c', 'import docker']).status === 0
    ? undefined
    : 'docker-py is not installed (apt-get install python3-docker)';

describe('swarm through docker-py', { skip: dockerPyMissing() }, () => {
  const suite = useEngine();

  test('the swarm, nodes, secrets, configs and services collections', { timeout: 300_000 }, async () => {
    const { svcd } = suite();
    const port = await freePort();
    const { stdout } = await run(
      python,
      [script, svcd.socket, 'busybox', String(port), webCommand('served-to-docker-py')],
      { encoding: 'utf8', timeout: 280_000 },
    );
    const seen = JSON.parse(stdout) as Record<string, Record<string, unknown>>;
    assert.deepEqual(seen.swarm, {
      id: true,
      node: true,
      workerToken: true,
      rotated: true,
      retention: 4,
    });
    assert.deepEqual(seen.nodes, {
      managers: 1,
      workers: 0,
      labels: { zone: 'a' },
      leader: true,
      byLabel: 1,
    });
    assert.deepEqual(seen.secrets, {
      names: ['py-secret'],
      byLabel: ['py-secret'],
      data: null,
      after: [],
    });
    assert.deepEqual(seen.configs, {
      names: ['py-config'],
      data: Buffer.from('py-conf').toString('base64'),
      after: [],
    });
    assert.deepEqual(seen.services, {
      listed: ['py-web'],
      slots: [1, 2],
      secretFile: 'py-s3cret',
      configFile: 'py-conf',
      taskLabel: 'py-web',
      served: 'served-to-docker-py',
      replicas: 1,
      env: ['STAGE=two'],
      logs: true,
    });
    assert.equal(seen.inactive, 'inactive');
    // Left: the ingress port no longer answers.
    assert.equal(await httpGet('127.0.0.1', String(port)), '');
  });
});

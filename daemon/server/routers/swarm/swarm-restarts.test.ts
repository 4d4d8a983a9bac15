// Swarm state across svcd restarts, with real task containers: a kill -9 with a replicated
// service running leaves the same tasks and containers after the restart; an autolocked swarm
// is locked after one until the unlock key is given; leave by force removes what it made.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { SwarmInspect, SwarmService, SwarmTask } from '../../../api/swarm-types';
import { expectStatus, useEngine } from '../../../testing/containers-fixture';
import { busyboxTask, initSwarm, json, running, tasksWhen } from '../../testing/swarm-fixture';

describe('the swarm across svcd restarts', () => {
  after(() => suite().svcd.request('POST', '/swarm/leave?force=true'));
  const suite = useEngine();

  test('kill -9 of svcd with a service running: the same tasks and containers after the restart', async () => {
    const { svcd } = suite();
    await initSwarm(svcd);
    await json(
      svcd,
      'POST',
      '/services/create',
      { Name: 'steady', TaskTemplate: busyboxTask('sleep 3600'), Mode: { Replicated: { Replicas: 2 } } },
      201,
    );
    const before = await tasksWhen(svcd, 'steady', 'two running', (t) => running(t).length === 2);
    await svcd.kill9();
    await svcd.start();
    const after = await tasksWhen(svcd, 'steady', 'the tasks seen again', (t) => running(t).length === 2);
    const ids = (ts: SwarmTask[]) => ts.map((t) => `${t.ID} ${t.Status.ContainerStatus?.ContainerID}`).sort();
    assert.deepEqual(ids(after), ids(before));
    const containers = await json<unknown[]>(
      svcd,
      'GET',
      `/containers/json?all=1&filters=${encodeURIComponent('{"label":["com.docker.swarm.service.name=steady"]}')}`,
    );
    assert.equal(containers.length, 2);
  });

  test('autolock: after a restart the swarm is locked until the unlock key is given; leave needs force', async () => {
    const { svcd } = suite();
    const swarm = await json<SwarmInspect>(svcd, 'GET', '/swarm');
    expectStatus(
      await svcd.request('POST', `/swarm/update?version=${swarm.Version.Index}`, {
        body: { ...swarm.Spec, EncryptionConfig: { AutoLockManagers: true } },
      }),
      200,
    );
    const { UnlockKey } = await json<{ UnlockKey: string }>(svcd, 'GET', '/swarm/unlockkey');
    assert.match(UnlockKey, /^SWMKEY-1-/);
    await svcd.stop();
    await svcd.start();
    const locked = await svcd.request('GET', '/services');
    assert.equal(locked.status, 503);
    assert.match(locked.text(), /Swarm is encrypted and needs to be unlocked/);
    const info = await json<{ Swarm: { LocalNodeState: string } }>(svcd, 'GET', '/info');
    assert.equal(info.Swarm.LocalNodeState, 'locked');
    expectStatus(await svcd.request('POST', '/swarm/unlock', { body: { UnlockKey: 'SWMKEY-1-wrong' } }), 400);
    expectStatus(await svcd.request('POST', '/swarm/unlock', { body: { UnlockKey } }), 200);
    assert.equal((await json<SwarmService[]>(svcd, 'GET', '/services')).length, 1);

    const leave = await svcd.request('POST', '/swarm/leave');
    assert.equal(leave.status, 503);
    assert.match(leave.text(), /Use `--force`/);
    expectStatus(await svcd.request('POST', '/swarm/leave?force=true'), 200);
    expectStatus(await svcd.request('GET', '/swarm'), 406);
    const left = await json<unknown[]>(
      svcd,
      'GET',
      `/containers/json?all=1&filters=${encodeURIComponent('{"label":["com.docker.swarm.task.id"]}')}`,
    );
    assert.deepEqual(left, []);
    const join = await svcd.request('POST', '/swarm/join', {
      body: { RemoteAddrs: ['127.0.0.1:1'], JoinToken: 'x' },
    });
    assert.equal(join.status, 501);
    assert.match(join.text(), /swarm of one machine.*Docker Swarm or Kubernetes/);
  });
});

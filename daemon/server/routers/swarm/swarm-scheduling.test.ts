// Where and how many tasks run on the one node, with real task containers, as Docker Engine
// 20.10 schedules them (its task states, messages and service status were read from dockerd
// doing the same): placement preferences, constraints, platforms, max replicas and reserved
// resources; the node's availability (pause, drain, active again); the global, replicated-job
// and global-job modes; and the node's events.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { SwarmNode, SwarmService, SwarmTask } from '../../../api/swarm-types';
import { expectStatus, useEngine } from '../../../testing/containers-fixture';
import { engineEvents } from '../../../testing/svcd-harness';
import {
  busyboxTask,
  createService,
  execIn,
  initSwarm,
  json,
  running,
  tasksOf,
  tasksWhen,
  updateService,
} from '../../testing/swarm-fixture';

const pending = (tasks: SwarmTask[]) => tasks.filter((t) => t.Status.State === 'pending');
const why = (reason: string) => `no suitable node (${reason})`;

describe('scheduling on the one node', () => {
  after(() => suite().svcd.request('POST', '/swarm/leave?force=true'));
  const suite = useEngine();
  let nodeId = '';

  const node = () => json<SwarmNode>(suite().svcd, 'GET', `/nodes/${nodeId}`);
  const updateNode = async (spec: Partial<SwarmNode['Spec']>) => {
    const n = await node();
    const body = { ...n.Spec, ...spec };
    const res = await suite().svcd.request('POST', `/nodes/${nodeId}/update?version=${n.Version.Index}`, {
      body,
    });
    expectStatus(res, 200, 'node update');
  };
  const status = async (name: string) =>
    (await json<SwarmService[]>(suite().svcd, 'GET', '/services?status=true')).find(
      (s) => s.Spec.Name === name,
    )?.ServiceStatus;

  test('init: the node becomes the manager and is ready, in two node events', async () => {
    const { svcd } = suite();
    const since = Date.now() / 1000;
    nodeId = await initSwarm(svcd);
    const hostname = (await node()).Description.Hostname;
    const events = await engineEvents(svcd, since, { type: ['node'] });
    assert.deepEqual(
      events.map((e) => [e.Action, e.Actor.ID, e.Actor.Attributes, e.scope]),
      [
        ['update', nodeId, { name: '', 'role.old': 'worker', 'role.new': 'manager' }, 'swarm'],
        ['update', nodeId, { name: hostname, 'state.old': 'unknown', 'state.new': 'ready' }, 'swarm'],
      ],
    );
  });

  test('placement: preferences kept as dockerd keeps them; constraints, platforms, max replicas and reservations the node cannot meet leave tasks pending', async () => {
    const { svcd } = suite();
    await createService(svcd, {
      Name: 'spread',
      TaskTemplate: {
        ...busyboxTask('sleep 3600'),
        Placement: {
          Preferences: [{ Spread: { SpreadDescriptor: 'node.labels.zone' } }, {}],
          Platforms: [{ OS: 'linux' }],
        },
      },
      Mode: { Replicated: { Replicas: 2 } },
    });
    await createService(svcd, {
      Name: 'capped',
      TaskTemplate: { ...busyboxTask('sleep 3600'), Placement: { MaxReplicas: 1 } },
      Mode: { Replicated: { Replicas: 2 } },
    });
    await createService(svcd, {
      Name: 'elsewhere',
      TaskTemplate: {
        ...busyboxTask('sleep 3600'),
        Placement: { Platforms: [{ OS: 'windows', Architecture: 'amd64' }] },
      },
    });
    await createService(svcd, {
      Name: 'greedy',
      TaskTemplate: { ...busyboxTask('sleep 3600'), Resources: { Reservations: { MemoryBytes: 2 ** 50 } } },
    });
    await createService(svcd, {
      Name: 'zoned',
      TaskTemplate: { ...busyboxTask('sleep 3600'), Placement: { Constraints: ['node.labels.zone==b'] } },
    });

    const bad = await svcd.request('POST', '/services/create', {
      body: {
        Name: 'bad',
        TaskTemplate: { ...busyboxTask('true'), Placement: { Constraints: ['node.role'] } },
      },
    });
    assert.equal(bad.status, 400);
    assert.match(bad.text(), /constraint expected one operator from ==, !=/);

    // Spread over a label on one node: every task on it.
    await tasksWhen(svcd, 'spread', 'two spread tasks running', (t) => running(t).length === 2);
    const spread = await json<SwarmService>(svcd, 'GET', '/services/spread');
    assert.deepEqual(spread.Spec.TaskTemplate?.Placement, {
      Preferences: [{ Spread: { SpreadDescriptor: 'node.labels.zone' } }],
      Platforms: [{ OS: 'linux' }],
    });

    const capped = await tasksWhen(
      svcd,
      'capped',
      'one capped task running, one pending',
      (t) => running(t).length === 1 && pending(t).length === 1,
    );
    assert.equal(pending(capped)[0].Status.Message, 'pending task scheduling');
    assert.equal(pending(capped)[0].Status.Err, why('max replicas per node limit exceed'));
    for (const [name, reason] of [
      ['elsewhere', 'unsupported platform on 1 node'],
      ['greedy', 'insufficient resources on 1 node'],
      ['zoned', 'scheduling constraints not satisfied on 1 node'],
    ]) {
      const [task] = await tasksWhen(svcd, name, `${name} pending`, (t) => pending(t).length === 1);
      assert.equal(task.Status.Err, why(reason), name);
      assert.equal(task.Status.Message, 'pending task scheduling', name);
      assert.equal(task.Status.ContainerStatus, undefined, `${name} has no container`);
    }
    // The node gets the label: the pending task is placed and runs.
    await updateNode({ Labels: { zone: 'b' } });
    await tasksWhen(
      svcd,
      'zoned',
      'zoned running once the node is in zone b',
      (t) => running(t).length === 1,
    );
    for (const name of ['spread', 'capped', 'elsewhere', 'greedy', 'zoned'])
      expectStatus(await svcd.request('DELETE', `/services/${name}`), 200);
  });

  test('availability: pause leaves new tasks pending, drain stops every task, active brings them back', async () => {
    const { svcd } = suite();
    await createService(svcd, {
      Name: 'steady',
      TaskTemplate: busyboxTask('sleep 3600'),
      Mode: { Replicated: { Replicas: 2 } },
    });
    await createService(svcd, {
      Name: 'everywhere',
      TaskTemplate: busyboxTask('sleep 3600'),
      Mode: { Global: {} },
    });
    await tasksWhen(svcd, 'steady', 'two running', (t) => running(t).length === 2);
    const [global] = await tasksWhen(
      svcd,
      'everywhere',
      'the global task running',
      (t) => running(t).length === 1,
    );
    assert.equal(global.NodeID, nodeId);
    assert.equal(global.Slot, undefined);
    const since = Date.now() / 1000;

    await updateNode({ Availability: 'pause' });
    await updateService(svcd, 'steady', (spec) => ({ ...spec, Mode: { Replicated: { Replicas: 3 } } }));
    const paused = await tasksWhen(svcd, 'steady', 'the third pending', (t) => pending(t).length === 1);
    assert.equal(pending(paused)[0].Slot, 3);
    assert.equal(pending(paused)[0].Status.Err, why('1 node not available for new tasks'));
    assert.deepEqual(
      running(paused)
        .map((t) => t.Slot)
        .sort(),
      [1, 2],
      'running tasks stay',
    );
    assert.deepEqual(await status('steady'), { RunningTasks: 2, DesiredTasks: 3, CompletedTasks: 0 });

    await updateNode({ Availability: 'drain' });
    const drained = await tasksWhen(
      svcd,
      'steady',
      'every steady task stopped, each slot pending',
      (t) =>
        running(t).length === 0 &&
        pending(t).length === 3 &&
        t.filter((x) => x.Status.State === 'shutdown').length === 2,
    );
    assert.ok(
      drained.filter((t) => t.Status.State === 'shutdown').every((t) => t.DesiredState === 'shutdown'),
    );
    assert.ok(pending(drained).every((t) => t.Status.Err === why('1 node not available for new tasks')));
    const globalDrained = await tasksWhen(svcd, 'everywhere', 'the global task shut down', (t) =>
      t.every((x) => x.Status.State === 'shutdown'),
    );
    assert.equal(globalDrained.length, 1, 'no new global task on a drained node');
    assert.deepEqual(await status('steady'), { RunningTasks: 0, DesiredTasks: 3, CompletedTasks: 0 });
    assert.deepEqual(await status('everywhere'), { RunningTasks: 0, DesiredTasks: 0, CompletedTasks: 0 });
    const live = await json<unknown[]>(
      svcd,
      'GET',
      `/containers/json?filters=${encodeURIComponent('{"label":["com.docker.swarm.task.id"]}')}`,
    );
    assert.deepEqual(live, [], 'no task container runs on a drained node');

    await updateNode({ Availability: 'active' });
    await tasksWhen(svcd, 'steady', 'three running again', (t) => running(t).length === 3);
    await tasksWhen(svcd, 'everywhere', 'the global task again', (t) => running(t).length === 1);
    const events = await engineEvents(svcd, since, { type: ['node'] });
    assert.deepEqual(
      events.map((e) => [e.Actor.Attributes?.['availability.old'], e.Actor.Attributes?.['availability.new']]),
      [
        ['active', 'pause'],
        ['pause', 'drain'],
        ['drain', 'active'],
      ],
    );
    for (const name of ['steady', 'everywhere'])
      expectStatus(await svcd.request('DELETE', `/services/${name}`), 200);
  });

  test('jobs: a replicated job runs MaxConcurrent at a time to TotalCompletions; a global job once on the node', async () => {
    const { svcd } = suite();
    // Each run waits at a gate (a volume they share) until the test opens it.
    await createService(svcd, {
      Name: 'batch',
      TaskTemplate: busyboxTask('until [ -e /gate/open ]; do sleep 0.2; done; echo done', {
        Mounts: [{ Type: 'volume', Source: 'batch-gate', Target: '/gate' }],
      }),
      Mode: { ReplicatedJob: { MaxConcurrent: 2, TotalCompletions: 5 } },
    });
    await createService(svcd, {
      Name: 'once',
      TaskTemplate: busyboxTask('echo once'),
      Mode: { GlobalJob: {} },
    });
    const waiting = await tasksWhen(svcd, 'batch', 'two runs waiting', (t) => running(t).length === 2);
    assert.equal(waiting.length, 2, 'no more than MaxConcurrent at a time');
    assert.deepEqual(
      waiting.map((t) => t.Slot ?? 0).sort(),
      [0, 1],
      'slots numbered from 0 as swarmkit does',
    );
    await execIn(svcd, waiting[0].Status.ContainerStatus!.ContainerID, 'touch /gate/open');
    const done = await tasksWhen(
      svcd,
      'batch',
      'five completions',
      (t) => t.filter((x) => x.Status.State === 'complete').length === 5,
    );
    assert.equal(done.length, 5, 'no run beyond TotalCompletions');
    assert.deepEqual(done.map((t) => t.Slot ?? 0).sort(), [0, 1, 2, 3, 4]);
    assert.ok(done.every((t) => t.Status.Message === 'finished' && t.DesiredState === 'complete'));
    assert.deepEqual(await status('batch'), { RunningTasks: 0, DesiredTasks: 2, CompletedTasks: 5 });
    const jobs = await json<SwarmService[]>(
      svcd,
      'GET',
      `/services?filters=${encodeURIComponent('{"mode":["replicated-job"]}')}`,
    );
    assert.deepEqual(
      jobs.map((s) => s.Spec.Name),
      ['batch'],
    );

    const [once] = await tasksWhen(
      svcd,
      'once',
      'the global job complete',
      (t) => t[0]?.Status.State === 'complete',
    );
    assert.equal(once.NodeID, nodeId);
    assert.equal(once.Slot, undefined);
    assert.equal(once.DesiredState, 'complete');
    const container = await json<{ Name: string }>(
      svcd,
      'GET',
      `/containers/${once.Status.ContainerStatus!.ContainerID}/json`,
    );
    assert.equal(container.Name, `/once.${nodeId}.${once.ID}`);
    assert.equal((await tasksOf(svcd, 'once')).length, 1, 'a completed job is not run again');
    assert.equal((await status('once'))?.CompletedTasks, 1);
    // An update of a job is a new run of it.
    const before = await json<SwarmService>(svcd, 'GET', '/services/once');
    await updateService(svcd, 'once', (spec) => ({
      ...spec,
      TaskTemplate: { ...spec.TaskTemplate, ForceUpdate: 1 },
    }));
    const again = await tasksWhen(
      svcd,
      'once',
      'the job run again',
      (t) => t.filter((x) => x.Status.State === 'complete').length === 2,
    );
    const after = await json<SwarmService>(svcd, 'GET', '/services/once');
    assert.notEqual(after.JobStatus?.JobIteration.Index, before.JobStatus?.JobIteration.Index);
    assert.ok(again.some((t) => t.JobIteration?.Index === after.JobStatus?.JobIteration.Index));
    for (const name of ['batch', 'once'])
      expectStatus(await svcd.request('DELETE', `/services/${name}`), 200);
  });
});

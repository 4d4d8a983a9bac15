// Rolling updates that fail, with real task containers: a new task that ends before it runs or
// within UpdateConfig.Monitor is a failure, and once failures exceed MaxFailureRatio the
// FailureAction happens (rollback, pause, continue), as Docker Engine 20.10 does them (its
// UpdateStatus, task states and service events were read from dockerd running the same
// updates); a task that fails after Monitor does not count. And the order and delay of the
// slots' replacement.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { ServiceSpec, SwarmTask } from '../../../api/swarm-types';
import { expectStatus, useEngine } from '../../../testing/containers-fixture';
import { engineEvents } from '../../../testing/svcd-harness';
import {
  busyboxTask,
  createService,
  execIn,
  initSwarm,
  running,
  serviceWhen,
  tasksOf,
  tasksWhen,
  updateService,
} from '../../testing/swarm-fixture';

const commandOf = (t: SwarmTask) => t.Spec.ContainerSpec?.Command?.join(' ');
/** The spec with a new task command (and restart policy, when given). */
const withCommand =
  (command: string, restart?: object) =>
  (spec: ServiceSpec): ServiceSpec => ({
    ...spec,
    TaskTemplate: {
      ...busyboxTask(command),
      ...(restart ? { RestartPolicy: restart } : {}),
    } as ServiceSpec['TaskTemplate'],
  });

describe('rolling updates and their failures', () => {
  after(() => suite().svcd.request('POST', '/swarm/leave?force=true'));
  const suite = useEngine();

  test(
    'FailureAction rollback: a task failing within Monitor rolls the update back by itself',
    { timeout: 240_000 },
    async () => {
      const { svcd } = suite();
      await initSwarm(svcd);
      const id = await createService(svcd, {
        Name: 'flaky',
        TaskTemplate: busyboxTask('sleep 3600'),
        Mode: { Replicated: { Replicas: 2 } },
        UpdateConfig: { Parallelism: 1, FailureAction: 'rollback', Monitor: 60e9 },
      });
      await tasksWhen(svcd, 'flaky', 'two running', (t) => running(t).length === 2);
      const since = Date.now() / 1000;
      // It runs, then fails: within the Monitor of 60 s, so a failure of the update.
      await updateService(svcd, 'flaky', withCommand('sleep 2; exit 3'));
      const service = await serviceWhen(
        svcd,
        'flaky',
        'the update rolled back',
        (s) => s.UpdateStatus?.State === 'rollback_completed',
      );
      assert.equal(service.UpdateStatus?.Message, 'rollback completed');
      assert.ok(service.UpdateStatus?.StartedAt && service.UpdateStatus.CompletedAt);
      assert.deepEqual(service.Spec.TaskTemplate?.ContainerSpec?.Command, ['sh', '-c', 'sleep 3600']);
      assert.deepEqual(service.PreviousSpec?.TaskTemplate?.ContainerSpec?.Command, [
        'sh',
        '-c',
        'sleep 2; exit 3',
      ]);
      const tasks = await tasksWhen(svcd, 'flaky', 'two running again', (t) => running(t).length === 2);
      assert.deepEqual(
        running(tasks).map(commandOf),
        ['sh -c sleep 3600', 'sh -c sleep 3600'],
        'both slots run the spec rolled back to',
      );
      // The failing spec's tasks (the second slot's began once the first ran) are all stopped.
      const bad = tasks.filter((t) => commandOf(t) === 'sh -c sleep 2; exit 3');
      assert.ok(bad.length >= 1);
      assert.ok(bad.every((t) => t.DesiredState === 'shutdown' && t.Status.State !== 'running'));
      const failed = bad.find((t) => t.Status.State === 'failed');
      assert.equal(failed?.Status.Err, 'task: non-zero exit (3)');
      assert.equal(failed?.Status.Message, 'started');

      // The service's events as dockerd sends them: the update, then each UpdateStatus change.
      const events = (await engineEvents(svcd, since, { type: ['service'] })).filter(
        (e) => e.Actor.ID === id,
      );
      assert.ok(events.every((e) => e.Action === 'update' && e.Actor.Attributes?.name === 'flaky'));
      assert.deepEqual(
        events.map((e) => [e.Actor.Attributes?.['updatestate.old'], e.Actor.Attributes?.['updatestate.new']]),
        [
          [undefined, undefined],
          [undefined, 'updating'],
          ['updating', 'rollback_started'],
          ['rollback_started', 'rollback_completed'],
        ],
      );
    },
  );

  test(
    'FailureAction pause with MaxFailureRatio 0.5: one failure of three goes on, the second pauses',
    { timeout: 240_000 },
    async () => {
      const { svcd } = suite();
      await createService(svcd, {
        Name: 'ratio',
        TaskTemplate: busyboxTask('sleep 3600'),
        Mode: { Replicated: { Replicas: 3 } },
        UpdateConfig: { Parallelism: 1, FailureAction: 'pause', MaxFailureRatio: 0.5, Monitor: 2e9 },
      });
      await tasksWhen(svcd, 'ratio', 'three running', (t) => running(t).length === 3);
      await updateService(svcd, 'ratio', withCommand('exit 2', { Condition: 'none' }));
      const service = await serviceWhen(
        svcd,
        'ratio',
        'the update paused',
        (s) => s.UpdateStatus?.State === 'paused',
      );
      const m = /^update paused due to failure or early termination of task (\w+)$/.exec(
        service.UpdateStatus!.Message,
      );
      assert.ok(m, service.UpdateStatus!.Message);
      const tasks = await tasksOf(svcd, 'ratio');
      const failed = tasks.filter((t) => t.Status.State === 'failed');
      assert.equal(failed.length, 2, 'the update stopped at its second failure');
      assert.ok(failed.some((t) => t.ID === m[1]));
      assert.ok(failed.every((t) => commandOf(t) === 'sh -c exit 2'));
      const left = running(tasks);
      assert.equal(left.length, 1, 'one slot still runs the old spec');
      assert.equal(commandOf(left[0]), 'sh -c sleep 3600');
      assert.ok(!failed.some((t) => t.Slot === left[0].Slot));
    },
  );

  test(
    'a task failing after Monitor does not count; FailureAction continue goes on past failures',
    { timeout: 240_000 },
    async () => {
      const { svcd } = suite();
      await createService(svcd, {
        Name: 'late',
        TaskTemplate: busyboxTask('sleep 3600'),
        UpdateConfig: { FailureAction: 'rollback', Monitor: 1e9 },
      });
      await createService(svcd, {
        Name: 'onward',
        TaskTemplate: busyboxTask('sleep 3600'),
        Mode: { Replicated: { Replicas: 2 } },
        UpdateConfig: { Parallelism: 1, FailureAction: 'continue' },
      });
      await tasksWhen(svcd, 'late', 'late running', (t) => running(t).length === 1);
      await tasksWhen(svcd, 'onward', 'onward running', (t) => running(t).length === 2);
      await updateService(svcd, 'late', withCommand('sleep 8; exit 1', { Condition: 'none' }));
      await updateService(svcd, 'onward', withCommand('exit 1', { Condition: 'none' }));

      const onward = await serviceWhen(
        svcd,
        'onward',
        'onward completed',
        (s) => s.UpdateStatus?.State === 'completed',
      );
      assert.equal(onward.UpdateStatus?.Message, 'update completed');
      const onwardTasks = await tasksOf(svcd, 'onward');
      assert.equal(onwardTasks.filter((t) => t.Status.State === 'failed').length, 2, 'both slots updated');

      await serviceWhen(svcd, 'late', 'late completed', (s) => s.UpdateStatus?.State === 'completed');
      await tasksWhen(svcd, 'late', 'the late task failed', (t) =>
        t.some((x) => x.Status.State === 'failed' && commandOf(x) === 'sh -c sleep 8; exit 1'),
      );
      const late = await serviceWhen(svcd, 'late', 'late seen after the failure', () => true);
      assert.equal(late.UpdateStatus?.State, 'completed', 'no rollback for a failure after Monitor');
      assert.deepEqual(late.Spec.TaskTemplate?.ContainerSpec?.Command, ['sh', '-c', 'sleep 8; exit 1']);
    },
  );
  test(
    'a rollback whose tasks fail pauses: a rollback is never rolled back',
    { timeout: 240_000 },
    async () => {
      const { svcd } = suite();
      // The first spec's tasks fail once the gate (a volume every task mounts) is open.
      const gate = { Mounts: [{ Type: 'volume', Source: 'doomed-gate', Target: '/gate' }] };
      await createService(svcd, {
        Name: 'doomed',
        TaskTemplate: {
          ...busyboxTask('[ -e /gate/open ] && exit 4; exec sleep 3600', gate),
          RestartPolicy: { Condition: 'any', Delay: 1e9 },
        },
        Mode: { Replicated: { Replicas: 2 } },
        UpdateConfig: { Parallelism: 1, FailureAction: 'rollback', Monitor: 120e9 },
        RollbackConfig: { Parallelism: 1, FailureAction: 'pause', Monitor: 120e9 },
      });
      await tasksWhen(svcd, 'doomed', 'two running', (t) => running(t).length === 2);
      await updateService(svcd, 'doomed', (spec) => ({
        ...spec,
        TaskTemplate: {
          ...spec.TaskTemplate,
          ContainerSpec: { ...spec.TaskTemplate!.ContainerSpec, Command: ['sleep', '3601'] },
        },
      }));
      const updated = await tasksWhen(
        svcd,
        'doomed',
        'both slots updated',
        (t) => running(t).filter((x) => commandOf(x) === 'sleep 3601').length === 2,
      );
      // One new task dies within Monitor: the update rolls back, and the rollback's own new
      // task fails at the gate, which pauses the rollback.
      const [victim] = running(updated);
      const id = victim.Status.ContainerStatus!.ContainerID;
      await execIn(svcd, id, 'touch /gate/open');
      expectStatus(await svcd.request('POST', `/containers/${id}/kill`), 204);
      const service = await serviceWhen(
        svcd,
        'doomed',
        'the rollback paused',
        (s) => s.UpdateStatus?.State === 'rollback_paused',
      );
      const m = /^rollback paused due to failure or early termination of task (\w+)$/.exec(
        service.UpdateStatus!.Message,
      );
      assert.ok(m, service.UpdateStatus!.Message);
      const failed = (await tasksOf(svcd, 'doomed')).find((t) => t.ID === m[1]);
      assert.equal(failed?.Status.Err, 'task: non-zero exit (4)');
      assert.equal(commandOf(failed!), 'sh -c [ -e /gate/open ] && exit 4; exec sleep 3600');
      assert.deepEqual(service.PreviousSpec?.TaskTemplate?.ContainerSpec?.Command, ['sleep', '3601']);
    },
  );
  test(
    'Order start-first starts each new task before its old one stops; stop-first after; Delay rests between slots',
    { timeout: 240_000 },
    async () => {
      const { svcd } = suite();
      for (const [name, order] of [
        ['first', 'start-first'],
        ['second', 'stop-first'],
      ] as const)
        await createService(svcd, {
          Name: name,
          TaskTemplate: busyboxTask('exec sleep 3600'),
          Mode: { Replicated: { Replicas: 2 } },
          UpdateConfig: { Parallelism: 1, Delay: 2e9, Order: order, Monitor: 1e9 },
        });
      for (const name of ['first', 'second']) {
        await tasksWhen(svcd, name, `${name} running`, (t) => running(t).length === 2);
        await updateService(svcd, name, withCommand('exec sleep 3601'));
      }
      for (const name of ['first', 'second']) {
        await serviceWhen(svcd, name, `${name} updated`, (s) => s.UpdateStatus?.State === 'completed');
        const tasks = await tasksWhen(svcd, name, `${name}'s old tasks stopped`, (t) =>
          t
            .filter((x) => commandOf(x) === 'sh -c exec sleep 3600')
            .every((x) => x.Status.State === 'shutdown'),
        );
        const at = (iso: string) => Date.parse(iso);
        const fresh = running(tasks).sort((a, b) => at(a.CreatedAt) - at(b.CreatedAt));
        assert.deepEqual(fresh.map(commandOf), ['sh -c exec sleep 3601', 'sh -c exec sleep 3601']);
        for (const task of fresh) {
          const old = tasks.find((t) => t.Slot === task.Slot && t.ID !== task.ID)!;
          if (name === 'first')
            assert.ok(
              at(old.Status.Timestamp) >= at(task.Status.Timestamp),
              'the old task stopped after the new ran',
            );
          else
            assert.ok(
              at(task.CreatedAt) >= at(old.Status.Timestamp),
              'the new task made after the old stopped',
            );
        }
        // The second slot waited the Delay from the moment the first slot's new task ran.
        assert.ok(
          at(fresh[1].CreatedAt) - at(fresh[0].Status.Timestamp) >= 1999,
          `${name}: Delay between slots`,
        );
      }
    },
  );
});

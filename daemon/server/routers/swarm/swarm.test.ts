// Swarm mode on a real svcd, through the Engine API: the swarm's lifecycle (init, update,
// tokens), the one node, secrets and configs, and services whose tasks are real containers
// (ingress answering on loopback, restart, scaling, secrets and configs as files). Restarts
// are in swarm-restarts.test.ts, scheduling and job modes in swarm-scheduling.test.ts.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type {
  SwarmConfig,
  SwarmInfo,
  SwarmInspect,
  SwarmNode,
  SwarmSecret,
  SwarmService,
} from '../../../api/swarm-types';
import type { ContainerInspect } from '../../../api/container-summary-types';
import { expectStatus, useEngine } from '../../../testing/containers-fixture';
import { busyboxTask, execIn, json, running, tasksOf, tasksWhen } from '../../testing/swarm-fixture';
import { served, webCommand } from '../../../testing/host-http';
import { engineEvents } from '../../../testing/svcd-harness';
import { pollUntil } from '../../../testing/poll';
import { freePort } from '../../../testing/distribution';

const run = promisify(execFile);

describe('swarm mode through the Engine API', () => {
  // First, so that it runs before the engine's cleanup: a swarm would start the task
  // containers that cleanup removes again.
  after(() => suite().svcd.request('POST', '/swarm/leave?force=true'));
  const suite = useEngine();
  let nodeId = '';

  test('outside a swarm the swarm resources answer 406, as the spec says', async () => {
    const { svcd } = suite();
    for (const path of ['/swarm', '/nodes', '/services', '/tasks', '/secrets', '/configs']) {
      const res = await svcd.request('GET', path);
      assert.equal(res.status, 406, path);
      assert.match(res.json<{ message: string }>().message, /not a swarm manager/);
    }
    const info = await json<{ Swarm: { LocalNodeState: string } }>(svcd, 'GET', '/info');
    assert.equal(info.Swarm.LocalNodeState, 'inactive');
  });

  test('init makes a one-node swarm; GET /swarm and /info show it; a second init and a join are refused', async () => {
    const { svcd } = suite();
    expectStatus(await svcd.request('POST', '/swarm/init', { body: { ListenAddr: 'nonsense' } }), 400);
    nodeId = await json<string>(svcd, 'POST', '/swarm/init', {
      ListenAddr: '127.0.0.1:2377',
      AdvertiseAddr: '127.0.0.1',
      DataPathPort: 4790,
      DefaultAddrPool: ['10.20.0.0/16'],
      SubnetSize: 26,
      Spec: { Orchestration: { TaskHistoryRetentionLimit: 3 } },
    });
    assert.match(nodeId, /^[0-9a-z]{25}$/);
    const swarm = await json<SwarmInspect>(svcd, 'GET', '/swarm');
    assert.equal(swarm.DataPathPort, 4790);
    assert.deepEqual(swarm.DefaultAddrPool, ['10.20.0.0/16']);
    assert.equal(swarm.SubnetSize, 26);
    assert.equal(swarm.Spec.Orchestration?.TaskHistoryRetentionLimit, 3);
    assert.equal(swarm.Spec.Raft?.ElectionTick, 10);
    assert.match(swarm.JoinTokens.Worker, /^SWMTKN-1-[0-9a-z]{50}-[0-9a-z]{25}$/);
    assert.match(swarm.TLSInfo.TrustRoot, /BEGIN CERTIFICATE/);
    assert.equal(swarm.RootRotationInProgress, false);
    const info = await json<{ Swarm: SwarmInfo }>(svcd, 'GET', '/info');
    assert.equal(info.Swarm.LocalNodeState, 'active');
    assert.equal(info.Swarm.NodeID, nodeId);
    assert.equal(info.Swarm.ControlAvailable, true);
    assert.deepEqual(info.Swarm.RemoteManagers, [{ NodeID: nodeId, Addr: '127.0.0.1:2377' }]);
    assert.equal(info.Swarm.Nodes, 1);
    assert.equal(info.Swarm.Cluster?.ID, swarm.ID);
    const again = await svcd.request('POST', '/swarm/init', { body: {} });
    assert.equal(again.status, 503);
    assert.match(again.text(), /already part of a swarm/);
    const join = await svcd.request('POST', '/swarm/join', { body: { RemoteAddrs: ['127.0.0.1:1'] } });
    assert.equal(join.status, 503);
  });

  test('update checks the version and rotates the join tokens', async () => {
    const { svcd } = suite();
    const before = await json<SwarmInspect>(svcd, 'GET', '/swarm');
    const stale = await svcd.request('POST', `/swarm/update?version=${before.Version.Index - 1}`, {
      body: before.Spec,
    });
    assert.equal(stale.status, 409);
    assert.match(stale.text(), /out of sequence/);
    expectStatus(await svcd.request('POST', '/swarm/update', { body: before.Spec }), 400, 'no version');
    expectStatus(
      await svcd.request('POST', `/swarm/update?version=${before.Version.Index}&rotateWorkerToken=true`, {
        body: { ...before.Spec, Labels: { team: 'a' } },
      }),
      200,
    );
    const after = await json<SwarmInspect>(svcd, 'GET', '/swarm');
    assert.notEqual(after.JoinTokens.Worker, before.JoinTokens.Worker);
    assert.equal(after.JoinTokens.Manager, before.JoinTokens.Manager);
    assert.deepEqual(after.Spec.Labels, { team: 'a' });
    assert.ok(after.Version.Index > before.Version.Index);
    assert.deepEqual(await json(svcd, 'GET', '/swarm/unlockkey'), { UnlockKey: '' });
  });

  test('the one node: list filters, inspect, update with its version, delete refused', async () => {
    const { svcd } = suite();
    const q = (f: object) => `/nodes?filters=${encodeURIComponent(JSON.stringify(f))}`;
    assert.equal((await json<SwarmNode[]>(svcd, 'GET', q({ role: ['manager'] }))).length, 1);
    assert.equal((await json<SwarmNode[]>(svcd, 'GET', q({ role: ['worker'] }))).length, 0);
    assert.equal((await json<SwarmNode[]>(svcd, 'GET', q({ membership: ['accepted'] }))).length, 1);
    expectStatus(await svcd.request('GET', q({ colour: ['x'] })), 400);
    const node = await json<SwarmNode>(svcd, 'GET', `/nodes/${nodeId}`);
    assert.equal(node.ManagerStatus?.Leader, true);
    assert.equal(node.Status.State, 'ready');
    assert.equal(node.Spec.Availability, 'active');
    expectStatus(await svcd.request('GET', '/nodes/nosuchnode'), 404);
    const path = (v: number) => `/nodes/${nodeId}/update?version=${v}`;
    expectStatus(await svcd.request('POST', path(node.Version.Index - 1), { body: node.Spec }), 409, 'stale');
    expectStatus(
      await svcd.request('POST', path(node.Version.Index), { body: { Role: 'manager' } }),
      400,
      'no availability',
    );
    const demote = await svcd.request('POST', path(node.Version.Index), {
      body: { ...node.Spec, Role: 'worker' },
    });
    assert.equal(demote.status, 400);
    assert.match(demote.text(), /last manager/);
    expectStatus(
      await svcd.request('POST', path(node.Version.Index), {
        body: { ...node.Spec, Labels: { zone: 'a' } },
      }),
      200,
    );
    assert.equal((await json<SwarmNode[]>(svcd, 'GET', q({ 'node.label': ['zone=a'] }))).length, 1);
    assert.equal((await json<SwarmNode[]>(svcd, 'GET', q({ 'node.label': ['zone!=a'] }))).length, 0);
    const remove = await svcd.request('DELETE', `/nodes/${nodeId}?force=true`);
    assert.equal(remove.status, 400);
    assert.match(remove.text(), /must be demoted to worker before removal/);
  });

  test('secrets and configs: create, duplicates, inspect without the data, label-only updates, delete', async () => {
    const { svcd } = suite();
    const data = Buffer.from('s3cret\n').toString('base64');
    const { ID } = await json<{ ID: string }>(
      svcd,
      'POST',
      '/secrets/create',
      { Name: 'db-pass', Data: data },
      201,
    );
    expectStatus(
      await svcd.request('POST', '/secrets/create', { body: { Name: 'db-pass', Data: data } }),
      409,
    );
    expectStatus(
      await svcd.request('POST', '/secrets/create', { body: { Name: 'bad name', Data: data } }),
      400,
    );
    const secret = await json<SwarmSecret>(svcd, 'GET', `/secrets/${ID}`);
    assert.equal(secret.Spec.Name, 'db-pass');
    assert.equal(secret.Spec.Data, undefined);
    const listed = await json<SwarmSecret[]>(svcd, 'GET', '/secrets');
    assert.deepEqual(
      listed.map((s) => [s.Spec.Name, s.Spec.Data]),
      [['db-pass', undefined]],
    );
    const v = secret.Version.Index;
    expectStatus(
      await svcd.request('POST', `/secrets/${ID}/update?version=${v}`, { body: { Name: 'other' } }),
      400,
    );
    expectStatus(
      await svcd.request('POST', `/secrets/${ID}/update?version=${v}`, {
        body: { Name: 'db-pass', Labels: { a: 'b' } },
      }),
      200,
    );
    const byLabel = await json<unknown[]>(
      svcd,
      'GET',
      `/secrets?filters=${encodeURIComponent('{"label":["a=b"]}')}`,
    );
    assert.equal(byLabel.length, 1);
    expectStatus(await svcd.request('DELETE', '/secrets/nosuch'), 404);
    // The state file holds the data, readable by root only.
    const { stdout } = await run('stat', ['-c', '%a', `${svcd.dataRoot}/swarm/state.json`]);
    assert.equal(stdout.trim(), '600');

    const config = await json<{ ID: string }>(
      svcd,
      'POST',
      '/configs/create',
      { Name: 'app.conf', Data: Buffer.from('port=80\n').toString('base64') },
      201,
    );
    const inspected = await json<SwarmConfig>(svcd, 'GET', `/configs/${config.ID}`);
    assert.equal(Buffer.from(inspected.Spec.Data ?? '', 'base64').toString(), 'port=80\n');
    const templated = await svcd.request('POST', '/configs/create', {
      body: { Name: 't', Data: data, Templating: { Name: 'golang' } },
    });
    assert.equal(templated.status, 400);
    assert.match(templated.text(), /templating/);
  });

  test('a replicated service: named and labelled task containers, ingress on the host, restart, scaling', async () => {
    const { svcd } = suite();
    const port = await freePort();
    const { ID } = await json<{ ID: string }>(
      svcd,
      'POST',
      '/services/create',
      {
        Name: 'web',
        Labels: { 'com.docker.stack.namespace': 'demo' },
        TaskTemplate: busyboxTask(webCommand('served-by-swarm'), {
          Labels: { 'com.docker.stack.namespace': 'demo' },
          Env: ['MODE=test'],
          Hostname: 'web-task',
        }),
        Mode: { Replicated: { Replicas: 2 } },
        EndpointSpec: { Ports: [{ Protocol: 'tcp', TargetPort: 80, PublishedPort: port }] },
      },
      201,
    );
    expectStatus(
      await svcd.request('POST', '/services/create', {
        body: { Name: 'web', TaskTemplate: busyboxTask('true') },
      }),
      409,
    );
    const tasks = await tasksWhen(svcd, 'web', 'two running tasks', (t) => running(t).length === 2);
    assert.deepEqual(tasks.map((t) => t.Slot).sort(), [1, 2]);
    for (const task of tasks) {
      const c = await json<ContainerInspect>(
        svcd,
        'GET',
        `/containers/${task.Status.ContainerStatus!.ContainerID}/json`,
      );
      assert.equal(c.Name, `/web.${task.Slot}.${task.ID}`);
      assert.equal(c.Config.Labels?.['com.docker.swarm.service.id'], ID);
      assert.equal(c.Config.Labels?.['com.docker.swarm.service.name'], 'web');
      assert.equal(c.Config.Labels?.['com.docker.swarm.task.id'], task.ID);
      assert.equal(c.Config.Labels?.['com.docker.swarm.task.name'], `web.${task.Slot}.${task.ID}`);
      assert.equal(c.Config.Labels?.['com.docker.swarm.node.id'], nodeId);
      assert.equal(c.Config.Labels?.['com.docker.stack.namespace'], 'demo');
      assert.equal(c.Config.Hostname, 'web-task');
      assert.ok(c.Config.Env?.includes('MODE=test'));
      assert.equal(task.NodeID, nodeId);
      assert.equal(task.DesiredState, 'running');
    }
    assert.match(await served('127.0.0.1', String(port)), /served-by-swarm/);
    const listed = await json<SwarmService[]>(svcd, 'GET', '/services?status=true');
    assert.deepEqual(listed[0].ServiceStatus, { RunningTasks: 2, DesiredTasks: 2, CompletedTasks: 0 });
    assert.equal(listed[0].Endpoint.Ports?.[0].PublishedPort, port);

    // A task's container dies: the task fails and a new one takes its slot.
    const victim = tasks[0];
    expectStatus(
      await svcd.request('POST', `/containers/${victim.Status.ContainerStatus!.ContainerID}/kill`),
      204,
    );
    const replaced = await tasksWhen(
      svcd,
      'web',
      'the killed task replaced',
      (t) => running(t).length === 2 && t.some((x) => x.ID === victim.ID && x.Status.State === 'failed'),
    );
    const failed = replaced.find((t) => t.ID === victim.ID)!;
    assert.equal(failed.DesiredState, 'shutdown');
    assert.match(failed.Status.Err ?? '', /non-zero exit/);
    assert.ok(running(replaced).some((t) => t.Slot === victim.Slot && t.ID !== victim.ID));

    // Scaled to one: the other slot's tasks go, containers and all.
    const service = await json<SwarmService>(svcd, 'GET', `/services/${ID}`);
    expectStatus(
      await svcd.request('POST', `/services/${ID}/update?version=${service.Version.Index}`, {
        body: { ...service.Spec, Mode: { Replicated: { Replicas: 1 } } },
      }),
      200,
    );
    await tasksWhen(
      svcd,
      'web',
      'one task left',
      (t) => running(t).length === 1 && t.every((x) => x.Slot === 1),
    );
    const containers = await json<unknown[]>(
      svcd,
      'GET',
      `/containers/json?all=1&filters=${encodeURIComponent('{"label":["com.docker.swarm.service.name=web"]}')}`,
    );
    assert.ok(containers.length >= 1);
    const events = await engineEvents(svcd, 0, { type: ['service'] });
    assert.deepEqual(
      events
        .filter((e) => e.Actor.ID === ID)
        .map((e) => e.Action)
        .slice(0, 2),
      ['create', 'update'],
    );
    assert.equal(events[0].scope, 'swarm');
    expectStatus(await svcd.request('DELETE', `/services/${ID}`), 200);
    await pollUntil('the task containers removed', async () => {
      const left = await json<unknown[]>(
        svcd,
        'GET',
        `/containers/json?all=1&filters=${encodeURIComponent('{"label":["com.docker.swarm.service.name=web"]}')}`,
      );
      return left.length === 0 ? true : undefined;
    });
  });

  test('restart policy: on-failure restarts a failing task MaxAttempts times, a finished one never', async () => {
    const { svcd } = suite();
    const onFailure = (attempts?: number) => ({
      RestartPolicy: { Condition: 'on-failure', Delay: 0, ...(attempts ? { MaxAttempts: attempts } : {}) },
    });
    await json(
      svcd,
      'POST',
      '/services/create',
      { Name: 'flapping', TaskTemplate: { ...busyboxTask('exit 7'), ...onFailure(2) } },
      201,
    );
    await json(
      svcd,
      'POST',
      '/services/create',
      { Name: 'finishing', TaskTemplate: { ...busyboxTask('echo ok'), ...onFailure() } },
      201,
    );
    // Each ended task is shut down in the pass that decides whether its slot gets another.
    const flapping = await tasksWhen(
      svcd,
      'flapping',
      'three failed runs, the last one decided',
      (t) => t.length === 3 && t.every((x) => x.Status.State === 'failed' && x.DesiredState === 'shutdown'),
    );
    assert.ok(flapping.every((t) => t.Slot === 1 && t.Status.Err === 'task: non-zero exit (7)'));
    assert.equal((await tasksOf(svcd, 'flapping')).length, 3, 'one run and two restarts, then none');
    const [finished] = await tasksWhen(
      svcd,
      'finishing',
      'the finished run decided',
      (t) => t[0]?.DesiredState === 'shutdown',
    );
    assert.equal(finished.Status.State, 'complete');
    assert.equal((await tasksOf(svcd, 'finishing')).length, 1);
    for (const name of ['flapping', 'finishing'])
      expectStatus(await svcd.request('DELETE', `/services/${name}`), 200);
  });

  test('secrets and configs reach the task as files; a used secret cannot be removed', async () => {
    const { svcd } = suite();
    await json(
      svcd,
      'POST',
      '/services/create',
      {
        Name: 'reader',
        TaskTemplate: busyboxTask('sleep 3600', {
          Secrets: [{ SecretName: 'db-pass', File: { Name: 'db-pass', UID: '0', GID: '0', Mode: 0o400 } }],
          Configs: [
            { ConfigName: 'app.conf', File: { Name: '/etc/app.conf', UID: '0', GID: '0', Mode: 0o444 } },
          ],
        }),
      },
      201,
    );
    const [task] = running(
      await tasksWhen(svcd, 'reader', 'the reader running', (t) => running(t).length === 1),
    );
    const id = task.Status.ContainerStatus!.ContainerID;
    const exec = (cmd: string) => execIn(svcd, id, cmd);
    assert.equal(await exec('cat /run/secrets/db-pass'), 's3cret\n');
    assert.equal(await exec('stat -c %a /run/secrets/db-pass'), '400\n');
    assert.equal(await exec('cat /etc/app.conf'), 'port=80\n');
    // The secret's file is on a tmpfs of the task's, as dockerd keeps it off the disk.
    const { stdout } = await run('findmnt', [
      '-n',
      '-o',
      'FSTYPE',
      '-T',
      `${svcd.dataRoot}/swarm/files/${task.ID}/secrets`,
    ]);
    assert.equal(stdout.trim(), 'tmpfs');
    const refused = await svcd.request('DELETE', '/secrets/db-pass');
    assert.equal(refused.status, 400);
    assert.match(refused.text(), /in use by the following service: reader/);
    expectStatus(await svcd.request('DELETE', '/services/reader'), 200);
    await pollUntil('the secret free', async () =>
      (await svcd.request('DELETE', '/secrets/db-pass')).status === 204 ? true : undefined,
    );
  });
});

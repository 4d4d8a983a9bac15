// The swarm's events of type service, secret and config, with dockerd's actions and
// attributes (read from Docker Engine 20.10 doing the same): the object's name, and for a
// service update what changed in it.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { SwarmSecret } from '../../../api/swarm-types';
import { expectStatus, useEngine } from '../../../testing/containers-fixture';
import { engineEvents } from '../../../testing/svcd-harness';
import { busyboxTask, createService, initSwarm, json, updateService } from '../../testing/swarm-fixture';

describe('swarm events', () => {
  after(() => suite().svcd.request('POST', '/swarm/leave?force=true'));
  const suite = useEngine();

  test('service, secret and config events name the object and what an update changed', async () => {
    const { svcd } = suite();
    await initSwarm(svcd);
    const since = Date.now() / 1000;
    const data = Buffer.from('x').toString('base64');
    const { ID: secretId } = await json<{ ID: string }>(
      svcd,
      'POST',
      '/secrets/create',
      { Name: 'token', Data: data },
      201,
    );
    const secret = await json<SwarmSecret>(svcd, 'GET', `/secrets/${secretId}`);
    expectStatus(
      await svcd.request('POST', `/secrets/${secretId}/update?version=${secret.Version.Index}`, {
        body: { ...secret.Spec, Labels: { rotated: 'yes' } },
      }),
      200,
    );
    expectStatus(await svcd.request('DELETE', `/secrets/${secretId}`), 204);
    const { ID: configId } = await json<{ ID: string }>(
      svcd,
      'POST',
      '/configs/create',
      { Name: 'settings', Data: data },
      201,
    );
    expectStatus(await svcd.request('DELETE', `/configs/${configId}`), 204);
    const serviceId = await createService(svcd, { Name: 'evented', TaskTemplate: busyboxTask('sleep 3600') });
    await updateService(svcd, 'evented', (spec) => ({ ...spec, Mode: { Replicated: { Replicas: 2 } } }));
    await updateService(svcd, 'evented', (spec) => ({
      ...spec,
      TaskTemplate: {
        ...spec.TaskTemplate,
        ContainerSpec: { ...spec.TaskTemplate!.ContainerSpec, Image: 'busybox:latest' },
      },
    }));
    expectStatus(await svcd.request('DELETE', '/services/evented'), 200);

    const events = await engineEvents(svcd, since, { type: ['secret', 'config'] });
    assert.deepEqual(
      events.map((e) => [e.Type, e.Action, e.Actor.ID, e.Actor.Attributes, e.scope]),
      [
        ['secret', 'create', secretId, { name: 'token' }, 'swarm'],
        ['secret', 'update', secretId, { name: 'token' }, 'swarm'],
        ['secret', 'remove', secretId, { name: 'token' }, 'swarm'],
        ['config', 'create', configId, { name: 'settings' }, 'swarm'],
        ['config', 'remove', configId, { name: 'settings' }, 'swarm'],
      ],
    );
    // The runner's own UpdateStatus events come between, as the tasks are replaced.
    const service = (await engineEvents(svcd, since, { type: ['service'] })).filter(
      (e) => e.Actor.ID === serviceId,
    );
    assert.deepEqual(service[0].Action, 'create');
    assert.deepEqual(service[0].Actor.Attributes, { name: 'evented' });
    assert.deepEqual(service[1].Actor.Attributes, {
      name: 'evented',
      'replicas.old': '1',
      'replicas.new': '2',
    });
    assert.ok(
      service.some(
        (e) =>
          e.Action === 'update' &&
          e.Actor.Attributes?.['image.old'] === 'busybox' &&
          e.Actor.Attributes['image.new'] === 'busybox:latest',
      ),
    );
    assert.deepEqual(service[service.length - 1].Action, 'remove');
    assert.deepEqual(service[service.length - 1].Actor.Attributes, { name: 'evented' });
  });
});

// A service whose image is in a private registry (Distribution 2.8 with htpasswd on loopback):
// its tasks pull it with the X-Registry-Auth given at create, kept across an update that brings
// none; without it the task is rejected with the registry's refusal.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SwarmService } from '../../../api/swarm-types';
import { expectStatus, inspect, useEngine } from '../../../testing/containers-fixture';
import { startDistribution, type Distribution } from '../../../testing/distribution';
import { busyboxTask, json, running, tasksWhen } from '../../testing/swarm-fixture';

const user = { username: 'swarm-user', password: 'pull-s3cret' };
const authHeader = { 'X-Registry-Auth': Buffer.from(JSON.stringify(user)).toString('base64url') };

describe('private images for tasks', () => {
  let registry: Distribution;
  before(async () => {
    registry = await startDistribution({ basic: user });
  });
  after(() => registry?.stop());
  after(() => suite().svcd.request('POST', '/swarm/leave?force=true'));
  const suite = useEngine();

  test(
    'the tasks pull with the service create auth; without it they are rejected',
    { timeout: 300_000 },
    async () => {
      const { svcd } = suite();
      const image = `${registry.host}/private/busybox:1`;
      expectStatus(
        await svcd.request('POST', `/images/busybox/tag?repo=${registry.host}/private/busybox&tag=1`),
        201,
      );
      const pushed = await svcd.request('POST', `/images/${registry.host}/private/busybox/push?tag=1`, {
        headers: authHeader,
      });
      assert.doesNotMatch(pushed.text(), /errorDetail/);
      const untag = async () => expectStatus(await svcd.request('DELETE', `/images/${image}`), 200);
      await untag();
      await json(svcd, 'POST', '/swarm/init', { ListenAddr: '127.0.0.1:2377', AdvertiseAddr: '127.0.0.1' });

      await json(
        svcd,
        'POST',
        '/services/create',
        {
          Name: 'anonymous',
          TaskTemplate: {
            ...busyboxTask('sleep 3600', { Image: image }),
            RestartPolicy: { Condition: 'none' },
          },
        },
        201,
      );
      const [refused] = await tasksWhen(
        svcd,
        'anonymous',
        'a rejected task',
        (t) => t[0]?.Status.State === 'rejected',
      );
      assert.match(refused.Status.Err ?? '', /unauthorized|authentication required|denied/i);
      expectStatus(await svcd.request('DELETE', '/services/anonymous'), 200);

      const created = await svcd.request('POST', '/services/create', {
        headers: authHeader,
        body: { Name: 'private', TaskTemplate: busyboxTask('sleep 3600', { Image: image }) },
      });
      expectStatus(created, 201);
      const [task] = running(
        await tasksWhen(svcd, 'private', 'the task running', (t) => running(t).length === 1),
      );
      const container = await inspect(svcd, task.Status.ContainerStatus!.ContainerID);
      assert.equal(container.Config.Image, image);
      // The auth is never shown.
      assert.doesNotMatch(
        JSON.stringify(await json(svcd, 'GET', '/services/private')),
        /pull-s3cret|swarm-user/,
      );

      // An update without the header keeps the auth: the image, gone again, is pulled with it.
      expectStatus(await svcd.request('DELETE', `/containers/${container.Id}?force=true`), 204);
      await tasksWhen(svcd, 'private', 'the task replaced', (t) => running(t).some((x) => x.ID !== task.ID));
      const service = await json<SwarmService>(svcd, 'GET', '/services/private');
      const replaced = running(
        await json(svcd, 'GET', `/tasks?filters=${encodeURIComponent('{"service":["private"]}')}`),
      );
      for (const t of replaced)
        expectStatus(
          await svcd.request('DELETE', `/containers/${t.Status.ContainerStatus!.ContainerID}?force=true`),
          204,
        );
      await untag();
      expectStatus(
        await svcd.request('POST', `/services/private/update?version=${service.Version.Index}`, {
          body: { ...service.Spec, TaskTemplate: { ...service.Spec.TaskTemplate, ForceUpdate: 1 } },
        }),
        200,
      );
      await tasksWhen(svcd, 'private', 'a task of the update running', (t) =>
        running(t).some((x) => x.Spec.ForceUpdate === 1),
      );
      expectStatus(await svcd.request('GET', `/images/${image}/json`), 200);
    },
  );
});

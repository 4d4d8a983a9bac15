// The Swarm screen in web mode: on the embedded svcd (no swarm) it says why there is nothing;
// on Docker Engine 20.10 made a swarm manager (`docker swarm init --advertise-addr 127.0.0.1`)
// and added as an engine, a service is created, scaled 1→3→1 with its tasks shown, its image
// updated and rolled back, its logs read, and removed; a secret and a config are made and removed.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { importBusybox } from '../daemon/engine/images/testing/busybox-image';
import {
  destroyDockerd,
  dockerdMissing,
  startDockerd,
  type DockerdPeer,
} from '../daemon/testing/dockerd-peer';
import { freePort, missingPrerequisite, startSession, type Session } from './web-mode-fixture';
import { addEngine } from './screen-steps';
import { shootLooks } from './looks';

describe('the Swarm screen', { skip: missingPrerequisite() ?? dockerdMissing() }, () => {
  let session: Session;
  let page: Page;
  let dockerd: DockerdPeer;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await dockerd.request(method, path, body === undefined ? undefined : { body });
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.body.toString()}`);
    const text = res.body.toString();
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
  const serviceRow = (name: string) => page.locator(`tr[data-service=${name}]`);

  before(async () => {
    // The image is on the node already: the swarm must not look it up in a registry (no network).
    process.env.DOCKER_SERVICE_PREFER_OFFLINE_IMAGE = '1';
    dockerd = await startDockerd();
    await importBusybox(dockerd);
    await call('POST', '/images/busybox:latest/tag?repo=e2e/busybox&tag=2');
    // Loopback only, on ports of its own: suites side by side must not meet on 2377 or 4789.
    const [listen, dataPath] = [await freePort(), await freePort()];
    await call('POST', '/swarm/init', {
      ListenAddr: `127.0.0.1:${listen}`,
      AdvertiseAddr: `127.0.0.1:${listen}`,
      DataPathAddr: '127.0.0.1',
      DataPathPort: dataPath,
    });
    session = await startSession();
    page = session.page;
    await page.goto(session.app.launchUrl + '#/swarm');
    await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
  });

  after(async () => {
    await session?.stop();
    await dockerd?.leaveSwarm();
    await destroyDockerd(dockerd);
  });

  test('on an engine that is no swarm manager, the screen says so and how to make one', async () => {
    const absent = page.getByTestId('swarm-absent');
    await absent.waitFor();
    assert.match(await absent.innerText(), /not a swarm manager[\s\S]*inactive[\s\S]*docker swarm init/);
    await session.shot('swarm-absent');
    assert.deepEqual(await shootLooks(page, 'swarm-absent'), []);
  });

  test('on Docker Engine 20.10 as a manager: a service created and shown with its replicas', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await addEngine(page, 'swarm-docker', `unix://${dockerd.socket}`, /^up, 20\.10/);
    await page.getByLabel('Engine', { exact: true }).selectOption({ label: 'swarm-docker' });
    await page.getByRole('link', { name: 'Swarm' }).click();
    await page.getByText('a manager of its swarm').waitFor();
    await page.getByRole('button', { name: 'Create service…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a service' });
    await dialog.getByLabel('Name').fill('web');
    await dialog.getByLabel('Image').fill('busybox:latest');
    await dialog.getByLabel('Command (optional)').fill('sh -c "echo task says hello; exec sleep 600"');
    await dialog.getByRole('button', { name: 'Create service' }).click();
    await dialog.waitFor({ state: 'detached' });
    await serviceRow('web')
      .getByTestId('service-replicas')
      .filter({ hasText: '1/1' })
      .waitFor({ timeout: 60_000 });
    assert.match(await serviceRow('web').innerText(), /web[\s\S]*replicated[\s\S]*1\/1[\s\S]*busybox:latest/);
  });

  test('scaled 1→3→1, its tasks shown running, then two gone', async () => {
    const scale = async (n: number) => {
      await serviceRow('web').getByRole('button', { name: 'Scale web' }).click();
      const dialog = page.getByRole('dialog', { name: 'Scale web' });
      await dialog.getByLabel('Replicas').fill(String(n));
      await dialog.getByRole('button', { name: 'Scale' }).click();
      await dialog.waitFor({ state: 'detached' });
      await serviceRow('web')
        .getByTestId('service-replicas')
        .filter({ hasText: `${n}/${n}` })
        .waitFor({ timeout: 60_000 });
    };
    await scale(3);
    await serviceRow('web').getByRole('button', { name: 'Tasks of web' }).click();
    const tasks = page.getByRole('region', { name: 'Tasks of web' }).getByTestId('task-row');
    await tasks.filter({ hasText: 'running' }).nth(2).waitFor();
    await session.shot('swarm-services');
    assert.deepEqual(await shootLooks(page, 'swarm-services'), []);
    await scale(1);
    // Two of the three go: Docker removes their tasks once they have shut down.
    await tasks.filter({ hasText: 'running' }).nth(1).waitFor({ state: 'detached', timeout: 60_000 });
    assert.equal(await tasks.filter({ hasText: 'running' }).count(), 1);
    const services = (await call('GET', '/services')) as {
      Spec: { Mode: { Replicated: { Replicas: number } } };
    }[];
    assert.equal(services[0].Spec.Mode.Replicated.Replicas, 1);
  });

  test('its logs, then its image updated and rolled back', async () => {
    await serviceRow('web').getByRole('button', { name: 'Logs of web' }).click();
    await page
      .getByRole('region', { name: 'Logs of web' })
      .getByText('task says hello')
      .first()
      .waitFor({ timeout: 30_000 });
    await serviceRow('web').getByRole('button', { name: 'Update the image of web' }).click();
    const dialog = page.getByRole('dialog', { name: 'Update the image of web' });
    await dialog.getByLabel('Image').fill('e2e/busybox:2');
    await dialog.getByRole('button', { name: 'Update' }).click();
    await serviceRow('web').filter({ hasText: 'e2e/busybox:2' }).waitFor();
    await serviceRow('web').getByRole('button', { name: 'Roll back web' }).click();
    await serviceRow('web').filter({ hasText: 'busybox:latest' }).waitFor({ timeout: 30_000 });
  });

  test('removed after a confirmation', async () => {
    await serviceRow('web').getByRole('button', { name: 'Remove web' }).click();
    await page
      .getByRole('dialog', { name: 'Remove service web?' })
      .getByRole('button', { name: 'Remove service' })
      .click();
    await serviceRow('web').waitFor({ state: 'detached' });
    assert.deepEqual(await call('GET', '/services'), []);
  });

  test('nodes listed; a secret and a config created and removed, the secret never shown back', async () => {
    await page.getByRole('tab', { name: 'Nodes' }).click();
    await page.getByRole('table', { name: 'Nodes' }).getByText('leader').waitFor();
    await session.shot('swarm-nodes');
    assert.deepEqual(await shootLooks(page, 'swarm-nodes'), []);
    await page.getByRole('tab', { name: 'Secrets' }).click();
    const form = page.getByRole('form', { name: 'Create a secret' });
    await form.getByLabel('Name').fill('db-password');
    await form.getByLabel('Value').fill('hunter2-very-secret');
    await form.getByRole('button', { name: 'Create secret' }).click();
    const row = page.locator('tr[data-object=db-password]');
    await row.waitFor();
    assert.equal(await form.getByLabel('Value').inputValue(), '', 'the value is cleared once sent');
    assert.doesNotMatch(await page.locator('main').innerText(), /hunter2/);
    await session.shot('swarm-secrets');
    assert.deepEqual(await shootLooks(page, 'swarm-secrets'), []);
    await row.getByRole('button', { name: 'Remove db-password' }).click();
    await page
      .getByRole('dialog', { name: 'Remove secret db-password?' })
      .getByRole('button', { name: 'Remove' })
      .click();
    await row.waitFor({ state: 'detached' });
    assert.deepEqual(await call('GET', '/secrets'), []);

    await page.getByRole('tab', { name: 'Configs' }).click();
    const cform = page.getByRole('form', { name: 'Create a config' });
    await cform.getByLabel('Name').fill('app-conf');
    await cform.getByLabel('Value').fill('level=debug');
    await cform.getByRole('button', { name: 'Create config' }).click();
    const crow = page.locator('tr[data-object=app-conf]');
    await crow.waitFor();
    const [config] = (await call('GET', '/configs')) as { Spec: { Data: string } }[];
    assert.equal(Buffer.from(config.Spec.Data, 'base64').toString(), 'level=debug');
    await crow.getByRole('button', { name: 'Remove app-conf' }).click();
    await page
      .getByRole('dialog', { name: 'Remove config app-conf?' })
      .getByRole('button', { name: 'Remove' })
      .click();
    await crow.waitFor({ state: 'detached' });
  });
});

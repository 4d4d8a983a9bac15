// The Swarm screen in web mode. On svcd's own swarm (the app's engine, `docker swarm init` from a
// terminal with the DOCKER_HOST the app printed): the screen follows the engine in and out of the
// swarm, the Networks screen makes an overlay network, a service with a published port is created,
// scaled 1→3→1 with its tasks shown as their containers, its logs read, and removed; a task that
// cannot start shows its error; then `docker swarm leave`. On Docker Engine 20.10 made a swarm manager
// (`docker swarm init --advertise-addr 127.0.0.1`) and added as an engine, the same, and its
// image updated and rolled back; a secret and a config are made and removed.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { claimSuiteSubnets } from '../daemon/testing/free-subnet';
import { pollUntil } from '../daemon/testing/poll';
import { importBusybox } from '../daemon/testing/busybox-image';
import {
  destroyDockerd,
  dockerdMissing,
  startDockerd,
  type DockerdPeer,
} from '../daemon/testing/dockerd-peer';
import { freePort, missingPrerequisite, startSession, type Session } from './web-mode-fixture';
import { addEngine } from './screen-steps';
import { shootLooks } from './looks';
import { engineCaller, pullBusybox, type EngineCall } from './engine-calls';

const serviceRowOn = (page: Page, name: string) => page.locator(`tr[data-service=${name}]`);

/** From the Services tab: a replicated service of one task, created and shown running 1/1. */
async function createService(page: Page, name: string, image: string, ports = ''): Promise<void> {
  await page.getByRole('button', { name: 'Create service…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create a service' });
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByLabel('Image').fill(image);
  await dialog.getByLabel('Command (optional)').fill('sh -c "echo task says hello; exec sleep 600"');
  if (ports) await dialog.getByLabel('Published ports (optional)').fill(ports);
  await dialog.getByRole('button', { name: 'Create service' }).click();
  await dialog.waitFor({ state: 'detached' });
  await serviceRowOn(page, name)
    .getByTestId('service-replicas')
    .filter({ hasText: '1/1' })
    .waitFor({ timeout: 60_000 });
}

/** Scales the service from its row's dialog and waits for n of n running. */
async function scaleService(page: Page, name: string, n: number): Promise<void> {
  await serviceRowOn(page, name)
    .getByRole('button', { name: `Scale ${name}` })
    .click();
  const dialog = page.getByRole('dialog', { name: `Scale ${name}` });
  await dialog.getByLabel('Replicas').fill(String(n));
  await dialog.getByRole('button', { name: 'Scale' }).click();
  await dialog.waitFor({ state: 'detached' });
  await serviceRowOn(page, name)
    .getByTestId('service-replicas')
    .filter({ hasText: `${n}/${n}` })
    .waitFor({ timeout: 60_000 });
}

/** The service's task rows that say running (shown once its Tasks button was pressed). */
const runningTasks = (page: Page, name: string) =>
  page
    .getByRole('region', { name: `Tasks of ${name}` })
    .getByTestId('task-row')
    .filter({ hasText: 'running' });

/** Scaled 1→3→1: three running tasks shown, then two of them gone. */
async function scaleUpAndDown(page: Page, name: string, shot: () => Promise<void>): Promise<void> {
  await scaleService(page, name, 3);
  await serviceRowOn(page, name)
    .getByRole('button', { name: `Tasks of ${name}` })
    .click();
  await runningTasks(page, name).nth(2).waitFor();
  await shot();
  await scaleService(page, name, 1);
  // Two of the three go: the engine removes their tasks once they have shut down.
  await runningTasks(page, name).nth(1).waitFor({ state: 'detached', timeout: 60_000 });
  assert.equal(await runningTasks(page, name).count(), 1);
}

/** The service's logs show what its task printed. */
async function readLogs(page: Page, name: string): Promise<void> {
  await serviceRowOn(page, name)
    .getByRole('button', { name: `Logs of ${name}` })
    .click();
  await page
    .getByRole('region', { name: `Logs of ${name}` })
    .getByText('task says hello')
    .first()
    .waitFor({ timeout: 30_000 });
}

/** Removed after the confirmation; its row goes. */
async function removeService(page: Page, name: string): Promise<void> {
  await serviceRowOn(page, name)
    .getByRole('button', { name: `Remove ${name}` })
    .click();
  await page
    .getByRole('dialog', { name: `Remove service ${name}?` })
    .getByRole('button', { name: 'Remove service' })
    .click();
  await serviceRowOn(page, name).waitFor({ state: 'detached' });
}

describe("the Swarm screen on svcd's own swarm", { skip: missingPrerequisite() }, () => {
  let session: Session;
  let page: Page;
  let engine: EngineCall;
  let image: string;
  /** The docker CLI at the app's engine, as a user runs it with the DOCKER_HOST it printed. */
  const docker = async (...args: string[]) =>
    (
      await promisify(execFile)('docker', args, {
        env: { ...process.env, DOCKER_HOST: session.app.dockerHost, DOCKER_CONFIG: session.app.dir },
      })
    ).stdout;
  /** The running containers of the service's tasks, as the engine lists them. */
  const taskContainers = async (service: string) =>
    (
      (await engine(
        'GET',
        `/containers/json?filters=${encodeURIComponent(JSON.stringify({ label: [`com.docker.swarm.service.name=${service}`] }))}`,
      )) as unknown[]
    ).length;

  before(async () => {
    session = await startSession();
    ({ page } = session);
    engine = engineCaller(session.app);
    image = await pullBusybox(session.app);
    await page.goto(session.app.launchUrl + '#/swarm');
    await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
  });

  after(async () => {
    // A swarm left behind would start the task containers the fixture's clean-up removes.
    await engine?.('POST', '/swarm/leave?force=true').catch(() => undefined);
    await session?.stop();
  });

  /** The Networks screen's create dialog, open. */
  const networkDialog = async () => {
    await page.evaluate(`location.hash = '#/networks'`);
    await page.getByRole('button', { name: 'New network…' }).click();
    return page.getByRole('dialog', { name: 'Create a network' });
  };

  test('`docker swarm init` in a terminal: the screen turns from "not a swarm manager" to the swarm', async () => {
    await page.getByTestId('swarm-absent').waitFor();
    const dialog = await networkDialog();
    const overlay = dialog.getByRole('option', { name: 'overlay (needs a swarm manager)' });
    assert.equal(await overlay.isDisabled(), true, 'no overlay network outside a swarm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.evaluate(`location.hash = '#/swarm'`);
    const [listen, dataPath] = [await freePort(), await freePort()];
    // Loopback, ports and an address pool of its own: its ingress network must not meet another suite's.
    const out = await docker(
      'swarm',
      'init',
      '--advertise-addr',
      '127.0.0.1',
      '--listen-addr',
      `127.0.0.1:${listen}`,
      '--data-path-port',
      String(dataPath),
      '--default-addr-pool',
      claimSuiteSubnets().wide,
    );
    assert.match(out, /Swarm initialized: current node \(\w+\) is now a manager/);
    // No reload: the screen notices by itself.
    await page.getByText('a manager of its swarm').waitFor({ timeout: 30_000 });
    await page.getByRole('tab', { name: 'Nodes' }).click();
    await page.getByRole('table', { name: 'Nodes' }).getByText('leader').waitFor();
    await page.getByRole('tab', { name: 'Services' }).click();
    await page.getByText('No services yet').waitFor();
  });

  test('on the manager, the Networks screen makes an attachable overlay network', async () => {
    const dialog = await networkDialog();
    await dialog.getByLabel('Name').fill('e2e-overlay');
    // The one select: its label's name takes in the chosen option's text.
    await dialog.locator('select').selectOption('overlay');
    await dialog.getByLabel('Attachable').check();
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.locator('tr[data-network="e2e-overlay"]');
    await row.getByText('attachable').waitFor();
    assert.match(await row.innerText(), /overlay/);
    const inspect = (await engine('GET', '/networks/e2e-overlay')) as { Driver: string; Scope: string };
    assert.deepEqual([inspect.Driver, inspect.Scope], ['overlay', 'swarm']);
    await page.evaluate(`location.hash = '#/swarm'`);
  });

  test('a service created from the screen with a published port, scaled 1→3→1 with its tasks shown, its logs read', async () => {
    const port = await freePort();
    await createService(page, 'web', image, `${port}:80`);
    assert.match(
      await serviceRowOn(page, 'web').innerText(),
      new RegExp(
        `web[\\s\\S]*replicated[\\s\\S]*1/1[\\s\\S]*${image.replace(/[.]/g, '\\.')}[\\s\\S]*${port}→80/tcp`,
      ),
    );
    await scaleUpAndDown(page, 'web', async () => {
      // Each running task is a running container of the engine.
      assert.equal(await taskContainers('web'), 3);
      assert.deepEqual(await shootLooks(page, 'swarm-svcd-services'), []);
    });
    const services = (await engine('GET', '/services')) as {
      Spec: { Mode: { Replicated: { Replicas: number } } };
    }[];
    assert.equal(services[0].Spec.Mode.Replicated.Replicas, 1);
    await readLogs(page, 'web');
  });

  test("a task that cannot start: its state and the engine's error in the service's tasks", async () => {
    await engine('POST', '/services/create', {
      Name: 'broken',
      TaskTemplate: { ContainerSpec: { Image: image, Command: ['/no/such/command'] } },
      Mode: { Replicated: { Replicas: 1 } },
    });
    await serviceRowOn(page, 'broken').getByRole('button', { name: 'Tasks of broken' }).click();
    const failed = page
      .getByRole('region', { name: 'Tasks of broken' })
      .getByTestId('task-row')
      .filter({ hasText: /failed|rejected/ })
      .first();
    await failed.waitFor({ timeout: 60_000 });
    assert.match(await failed.locator('.error-text').innerText(), /no such/i);
    await engine('DELETE', '/services/broken');
    await serviceRowOn(page, 'broken').waitFor({ state: 'detached' });
  });

  test('removed from the screen, its task containers gone; `docker swarm leave` and the screen says so', async () => {
    await removeService(page, 'web');
    assert.deepEqual(await engine('GET', '/services'), []);
    await pollUntil('the task containers to go', async () =>
      (await taskContainers('web')) === 0 ? true : undefined,
    );
    await docker('swarm', 'leave', '--force');
    const absent = page.getByTestId('swarm-absent');
    await absent.waitFor({ timeout: 30_000 });
    assert.match(await absent.innerText(), /not a swarm manager[\s\S]*inactive/);
  });
});

describe(
  'the Swarm screen on Docker Engine 20.10',
  { skip: missingPrerequisite() ?? dockerdMissing() },
  () => {
    let session: Session;
    let page: Page;
    let dockerd: DockerdPeer;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await dockerd.request(method, path, body === undefined ? undefined : { body });
      assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.body.toString()}`);
      const text = res.body.toString();
      return text ? (JSON.parse(text) as unknown) : undefined;
    };
    const serviceRow = (name: string) => serviceRowOn(page, name);

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
      await createService(page, 'web', 'busybox:latest');
      assert.match(
        await serviceRow('web').innerText(),
        /web[\s\S]*replicated[\s\S]*1\/1[\s\S]*busybox:latest/,
      );
    });

    test('scaled 1→3→1, its tasks shown running, then two gone', async () => {
      await scaleUpAndDown(page, 'web', async () => {
        await session.shot('swarm-services');
        assert.deepEqual(await shootLooks(page, 'swarm-services'), []);
      });
      const services = (await call('GET', '/services')) as {
        Spec: { Mode: { Replicated: { Replicas: number } } };
      }[];
      assert.equal(services[0].Spec.Mode.Replicated.Replicas, 1);
    });

    test('its logs, then its image updated and rolled back', async () => {
      await readLogs(page, 'web');
      await serviceRow('web').getByRole('button', { name: 'Update the image of web' }).click();
      const dialog = page.getByRole('dialog', { name: 'Update the image of web' });
      await dialog.getByLabel('Image').fill('e2e/busybox:2');
      await dialog.getByRole('button', { name: 'Update' }).click();
      await serviceRow('web').filter({ hasText: 'e2e/busybox:2' }).waitFor();
      await serviceRow('web').getByRole('button', { name: 'Roll back web' }).click();
      await serviceRow('web').filter({ hasText: 'busybox:latest' }).waitFor({ timeout: 30_000 });
    });

    test('removed after a confirmation', async () => {
      await removeService(page, 'web');
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
  },
);

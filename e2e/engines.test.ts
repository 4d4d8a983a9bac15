// Several engines in one window, in web mode: a second svcd serving tcp://127.0.0.2 with
// --tlsverify is added in Settings with its client certificate files, the switcher moves every
// screen to it (list, logs, terminal), the combined view shows both engines' containers with
// the engine column and filter, and an engine that is not there is shown down with its reason.
// Then Docker Engine 20.10, where installed, added by its unix socket, and a third svcd reached
// over ssh:// (the system ssh client to an sshd the test starts on loopback).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { importBusybox } from '../daemon/testing/busybox-image';
import {
  destroyDockerd,
  dockerdMissing,
  startDockerd,
  type DockerdPeer,
} from '../daemon/testing/dockerd-peer';
import type { EngineApi } from '../daemon/testing/engine-client';
import { pollUntil } from '../daemon/testing/poll';
import { destroySvcd, startSvcd, type SvcdInstance } from '../daemon/testing/svcd-harness';
import { makePki, startTlsSvcd, type Pki } from '../daemon/testing/test-pki';
import { engineCaller, pullBusybox } from './engine-calls';
import {
  CONTAINERS_SETTLED,
  missingPrerequisite,
  startSession,
  type Session,
  type WebAppOptions,
} from './web-mode-fixture';
import {
  addEngine,
  checkCombinedView,
  checkVolumeBrowser,
  openBusyboxLayer,
  runInTerminal,
} from './screen-steps';
import { sshdMissing, startSshHost, type SshHost } from './ssh-host';

/** Creates and starts, on an engine the test talks to directly, a busybox container printing `text`. */
async function runPrinting(
  engine: EngineApi,
  name: string,
  text: string,
  hostConfig?: object,
): Promise<void> {
  const made = await engine.request('POST', `/containers/create?name=${name}`, {
    body: { Image: 'busybox:latest', Cmd: ['sh', '-c', `echo ${text}; sleep 600`], HostConfig: hostConfig },
  });
  assert.equal(made.status, 201, made.body.toString());
  const { Id } = JSON.parse(made.body.toString()) as { Id: string };
  assert.equal((await engine.request('POST', `/containers/${Id}/start`)).status, 204);
}

/** Web mode on its Settings screen, where engines are added, once the embedded engine is up. */
async function settingsSession(opts?: WebAppOptions): Promise<Session> {
  const session = await startSession(opts);
  await session.page.goto(session.app.launchUrl + '#/settings');
  await session.page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
  return session;
}

describe('several engines in one window', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let page: Page;
  let second: SvcdInstance;
  let pkiDir: string;
  let pki: Pki;
  let port: number;

  before(async () => {
    pkiDir = await mkdtemp(join(tmpdir(), 'e2e-engines-pki-'));
    pki = await makePki(pkiDir);
    ({ svcd: second, port } = await startTlsSvcd(pki));
    await importBusybox(second);
    await runPrinting(second, 'on-second', 'hello from the second engine');

    session = await settingsSession();
    page = session.page;
    const image = await pullBusybox(session.app);
    await engineCaller(session.app)('POST', '/containers/create?name=on-embedded', {
      Image: image,
      Cmd: ['true'],
    });
  });

  after(async () => {
    await session?.stop();
    await destroySvcd(second);
    await rm(pkiDir, { recursive: true, force: true });
  });

  test('adds a tcp:// engine with TLS client certificates in Settings; it tests up', async () => {
    const form = page.getByRole('form', { name: 'Add an engine' });
    await form.getByLabel('Name').fill('second');
    await form.getByLabel('Endpoint').fill(`tcp://127.0.0.2:${port}`);
    await form.getByLabel('TLS CA certificate file').fill(pki.caCert);
    await form.getByLabel('TLS client certificate file').fill(pki.clientCert);
    await form.getByLabel('TLS client key file').fill(pki.clientKey);
    await form.getByRole('button', { name: 'Add engine' }).click();
    const row = page.getByTestId('engine-second');
    await row.getByText(/^up, /).waitFor();
    assert.match(await row.innerText(), new RegExp(`tcp://127\\.0\\.0\\.2:${port} \\(TLS\\)`));
    // The page knows the engine by name and address, never by its key file.
    assert.ok(!(await page.content()).includes(pki.clientKey));
    await session.shot('engines-settings');
  });

  test('refuses an engine it cannot use, saying why', async () => {
    const form = page.getByRole('form', { name: 'Add an engine' });
    await form.getByLabel('Name').fill('bad');
    await form.getByLabel('Endpoint').fill('http://127.0.0.1:2375');
    await form.getByRole('button', { name: 'Add engine' }).click();
    await form
      .getByRole('alert')
      .filter({ hasText: 'the scheme must be unix://, tcp:// or ssh://' })
      .waitFor();
  });

  test('switching engine moves the containers list, the logs and the terminal to it', async () => {
    await page.getByLabel('Engine', { exact: true }).selectOption({ label: 'second' });
    await page.goto(session.app.launchUrl.replace(/\?.*/, '') + '#/containers');
    await page.locator(CONTAINERS_SETTLED).first().waitFor();
    await page.getByTestId('container-row').filter({ hasText: 'on-second' }).waitFor();
    assert.equal(await page.getByTestId('container-row').filter({ hasText: 'on-embedded' }).count(), 0);
    await page
      .getByTestId('container-row')
      .filter({ hasText: 'on-second' })
      .getByRole('link')
      .first()
      .click();
    await page.getByRole('tab', { name: 'Logs' }).click();
    await page.locator('.log-lines .line', { hasText: 'hello from the second engine' }).waitFor();
    await runInTerminal(page, 'echo answer=$((40+2))', 'answer=42');
    await session.shot('engines-second-terminal');
  });

  test('the combined view lists both engines with an engine column, and filters by engine', async () => {
    await checkCombinedView(page, 'second', 'on-second', 'on-embedded', () =>
      session.shot('engines-combined'),
    );
  });

  test('an engine that is not there is shown down with its reason; the others still answer', async () => {
    const res = await fetch(`${session.app.base}/api/engines`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.app.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'gone', endpoint: `unix://${pkiDir}/no-such.sock` }),
    });
    assert.equal(res.status, 201);
    await page.reload();
    await page.getByLabel('Filter by engine').selectOption({ label: 'All engines' });
    await page.getByRole('alert').filter({ hasText: 'gone does not answer' }).waitFor();
    await page.getByRole('table', { name: 'Containers of all engines' }).getByText('on-second').waitFor();
    await page.getByLabel('Engine', { exact: true }).selectOption({ label: 'gone' });
    await page
      .getByTestId('engine-down')
      .filter({ hasText: /ENOENT|no such file/i })
      .waitFor();
    await session.shot('engines-down');
    await page.getByLabel('Engine', { exact: true }).selectOption({ label: 'Local (svcd)' });
    await page.getByTestId('engine-down').waitFor({ state: 'detached' });
  });
});

describe(
  'Docker Engine 20.10 as an added engine',
  { skip: missingPrerequisite() ?? dockerdMissing() },
  () => {
    let session: Session;
    let page: Page;
    let dockerd: DockerdPeer;

    before(async () => {
      dockerd = await startDockerd();
      await importBusybox(dockerd);
      // The peer has no bridge.
      await runPrinting(dockerd, 'on-docker', 'hello from docker', { NetworkMode: 'none' });
      session = await settingsSession();
      page = session.page;
    });

    after(async () => {
      await session?.stop();
      if (dockerd) {
        const list = await dockerd.request('GET', '/containers/json?all=1');
        for (const c of JSON.parse(list.body.toString()) as { Id: string }[])
          await dockerd.request('DELETE', `/containers/${c.Id}?force=1`);
      }
      await destroyDockerd(dockerd);
    });

    test('added by its socket, it tests up as 20.10; its containers and logs show when switched to', async () => {
      await addEngine(page, 'docker', `unix://${dockerd.socket}`, /^up, 20\.10/);
      await page.getByLabel('Engine', { exact: true }).selectOption({ label: 'docker' });
      await page.getByRole('link', { name: 'Containers' }).click();
      const row = page.getByTestId('container-row').filter({ hasText: 'on-docker' });
      await row.waitFor();
      await row.getByRole('link').first().click();
      await page.getByRole('tab', { name: 'Logs' }).click();
      await page.locator('.log-lines .line', { hasText: 'hello from docker' }).waitFor();
      await page.getByRole('link', { name: 'All engines' }).click();
      const table = page.getByRole('table', { name: 'Containers of all engines' });
      const cells = table.getByRole('row').filter({ hasText: 'on-docker' }).getByRole('cell');
      await cells.first().waitFor();
      assert.equal(await cells.first().innerText(), 'docker');
      await session.shot('engines-docker');
    });

    test("the layer explorer reads Docker's own save archive; the image's containers are Docker's", async () => {
      await page.evaluate(`location.hash = '#/images'`);
      const tree = await openBusyboxLayer(page, 'busybox:latest');
      await tree.getByRole('treeitem', { name: 'usr/bin', exact: true }).getByRole('button').first().click();
      assert.match(
        await tree.getByRole('treeitem', { name: 'usr/bin/env', exact: true }).innerText(),
        /→ \.\.\/\.\.\/bin\/busybox/,
      );
      await page.getByRole('tab', { name: 'Containers' }).click();
      await page
        .getByRole('table', { name: 'Containers' })
        .getByRole('link', { name: 'on-docker' })
        .waitFor();
      await session.shot('engines-docker-layers');
    });

    test('a Docker volume is browsed through a helper container Docker never starts, gone once closed', async () => {
      await checkVolumeBrowser(page, dockerd, 'busybox:latest', 'docker-data', () =>
        session.shot('engines-docker-volume'),
      );
    });

    test("switching engines while a volume's browser is open removes its helper from the engine left", async () => {
      assert.equal(
        (await dockerd.request('POST', '/volumes/create', { body: { Name: 'docker-switch' } })).status,
        201,
      );
      const helpers = async () =>
        (await dockerd.request('GET', '/containers/json?all=1'))
          .json<{ Labels: Record<string, string> }[]>()
          .filter((c) => c.Labels['dev.svc.desktop.volume-browser'] === 'docker-switch').length;
      await page.evaluate(`location.hash = '#/volumes/docker-switch'`);
      const until = (what: string, count: number) =>
        pollUntil(what, async () => ((await helpers()) === count ? true : undefined), {
          timeoutMs: 20_000,
          intervalMs: 200,
        });
      await until('the helper on Docker', 1);
      await page.getByLabel('Engine', { exact: true }).selectOption({ label: 'Local (svcd)' });
      await until('the helper removed from Docker', 0);
      // The volume was Docker's: the app went back to the list, and made nothing on svcd.
      await page.getByRole('heading', { name: 'Volumes', exact: true }).waitFor();
      assert.deepEqual(
        await engineCaller(session.app)(
          'GET',
          `/containers/json?all=1&filters=${encodeURIComponent(JSON.stringify({ label: ['dev.svc.desktop.volume-browser'] }))}`,
        ),
        [],
      );
    });
  },
);

describe(
  'an ssh:// engine through the system ssh client',
  { skip: missingPrerequisite() ?? sshdMissing() },
  () => {
    let session: Session;
    let page: Page;
    let remote: SvcdInstance;
    let host: SshHost;

    before(async () => {
      remote = await startSvcd();
      await importBusybox(remote);
      await runPrinting(remote, 'on-ssh-host', 'hello over ssh');
      host = await startSshHost(`unix://${remote.socket}`);
      session = await settingsSession({ env: host.clientEnv });
      page = session.page;
    });

    after(async () => {
      await session?.stop();
      await host?.stop();
      await destroySvcd(remote);
    });

    test("added as ssh://root@127.0.0.1:PORT, it tests up and lists the remote engine's containers", async () => {
      await addEngine(page, 'over-ssh', `ssh://root@127.0.0.1:${host.port}`, /^up, /);
      await page.getByLabel('Engine', { exact: true }).selectOption({ label: 'over-ssh' });
      await page.getByRole('link', { name: 'Containers' }).click();
      const listed = page.getByTestId('container-row').filter({ hasText: 'on-ssh-host' });
      await listed.waitFor();
      await listed.getByRole('link').first().click();
      await page.getByRole('tab', { name: 'Logs' }).click();
      await page.locator('.log-lines .line', { hasText: 'hello over ssh' }).waitFor();
      await session.shot('engines-ssh');
    });
  },
);

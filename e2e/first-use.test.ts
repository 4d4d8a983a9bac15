// What a first-time user meets, in web mode against the real svcd from a fresh data directory with
// no registry but the embedded one: getting a first image (load, import, save), the run dialog.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { makeImage, saveArchive } from './image-archives';
import { pushTestImage } from './registry-push';
import { importRootfs } from './screen-steps';
import {
  missingPrerequisite,
  startSession,
  type ServiceView,
  type Session,
  type WebApp,
} from './web-mode-fixture';

describe('first use in web mode', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let app: WebApp;
  let page: Page;
  // By address, not Alt+N: a focused terminal takes the keys.
  const go = (section: string) => page.evaluate(`location.hash = '#/${section}'`);
  const engineGet = async (path: string) =>
    (await fetch(`${app.base}/engine${path}`, { headers: { authorization: `Bearer ${app.token}` } })).json();

  before(async () => {
    session = await startSession();
    ({ app, page } = session);
    await page.goto(app.launchUrl + '#/images');
    await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
  });

  after(async () => {
    await session?.stop();
  });

  test('a first image: load by picker and by drop, import a rootfs, save, suggest only what exists', async () => {
    const empty = page.getByTestId('images-empty');
    await empty.waitFor();
    await session.shot('first-images-empty');
    await empty.getByRole('button', { name: 'Load…' }).click();
    const load = page.getByRole('dialog', { name: 'Load an image archive' });
    await load.getByLabel('Archive (from docker save)').setInputFiles({
      name: 'busybox.tar',
      mimeType: 'application/x-tar',
      buffer: saveArchive(makeImage(true), 'first/busybox:1.0'),
    });
    await load.getByRole('button', { name: 'Load', exact: true }).click();
    await load.getByText('Loaded image: first/busybox:1.0').waitFor({ timeout: 60_000 });
    assert.equal(await load.getByRole('progressbar', { name: 'Sent' }).count(), 1);
    await session.shot('first-image-loaded');
    await load.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('row', { name: /first\/busybox:1\.0/ }).waitFor();

    // Dropped on the screen, an archive is loaded at once.
    const dropped = saveArchive(makeImage(false), 'first/dropped:1.0').toString('base64');
    // Built in the page: a DataTransfer holding the archive as a File, as a real drop carries.
    const transfer = await page.evaluateHandle(`(() => {
      const dt = new DataTransfer();
      const bytes = Uint8Array.from(atob('${dropped}'), (c) => c.charCodeAt(0));
      dt.items.add(new File([bytes], 'dropped.tar', { type: 'application/x-tar' }));
      return dt;
    })()`);
    const screen = page.locator('main section.screen');
    await screen.dispatchEvent('dragover', { dataTransfer: transfer });
    await screen.dispatchEvent('drop', { dataTransfer: transfer });
    await load.getByText('Loaded image: first/dropped:1.0').waitFor({ timeout: 60_000 });
    await load.getByRole('button', { name: 'Close' }).click();

    await page.getByRole('button', { name: 'Import…' }).click();
    const imp = page.getByRole('dialog', { name: 'Import a root filesystem' });
    await importRootfs(imp, { repo: 'first/imported', tag: '2.0', command: 'sh -c "cat /hello.txt"' });
    await session.shot('first-image-imported');
    await page.getByRole('row', { name: /first\/imported:2\.0/ }).waitFor();
    const imported = (await engineGet('/images/first/imported:2.0/json')) as { Config: { Cmd: string[] } };
    assert.deepEqual(imported.Config.Cmd, ['sh', '-c', 'cat /hello.txt']);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page
        .getByRole('row', { name: /first\/busybox:1\.0/ })
        .getByRole('link', { name: 'Save' })
        .click(),
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'e2e-saved-'));
    try {
      await download.saveAs(join(dir, 'saved.tar'));
      execFileSync('tar', ['-xf', join(dir, 'saved.tar'), '-C', dir, 'manifest.json']);
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
        RepoTags: string[];
      }[];
      assert.deepEqual(manifest[0].RepoTags, ['first/busybox:1.0']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    // The pull field suggests what the embedded registry holds, and nothing it does not.
    await pushTestImage(app.registryUrl, 'e2e/suggested', '1.0', true);
    await page.getByRole('button', { name: 'Pull…' }).click();
    const pull = page.getByRole('dialog', { name: 'Pull an image' });
    const suggested = `${app.registryUrl.replace('http://', '')}/e2e/suggested:1.0`;
    await pull.locator(`datalist option[value="${suggested}"]`).waitFor({ state: 'attached' });
    assert.deepEqual(
      await pull.locator('datalist option').evaluateAll((os) => os.map((o) => o.getAttribute('value'))),
      [suggested],
    );
    assert.equal(await pull.getByLabel('Image').getAttribute('placeholder'), 'host:port/repository:tag');
    await pull.getByRole('button', { name: 'Close' }).click();
  });

  test('the run dialog: autocomplete, no default command, all form errors, errors per attempt, pull first', async () => {
    const engineSend = (method: string, path: string, body?: string | Buffer, type = 'application/json') =>
      fetch(`${app.base}/engine${path}`, {
        method,
        headers: { authorization: `Bearer ${app.token}`, 'content-type': type },
        body,
      });
    const nocmd = await engineSend(
      'POST',
      '/images/create?fromSrc=-&repo=first/nocmd&tag=1.0',
      makeImage(true, undefined).layer,
      'application/x-tar',
    );
    assert.equal(nocmd.status, 200);
    await nocmd.text();
    const taken = await engineSend(
      'POST',
      '/containers/create?name=taken',
      JSON.stringify({ Image: 'first/busybox:1.0', Cmd: ['true'] }),
    );
    assert.equal(taken.status, 201);
    await pushTestImage(app.registryUrl, 'e2e/runme', '1.0', true);
    const remote = `${app.registryUrl.replace('http://', '')}/e2e/runme:1.0`;

    await page.keyboard.press('Alt+1');
    await page.getByRole('button', { name: 'Run container…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run a container' });
    const options = dialog.locator('datalist#local-images option');
    await dialog.locator('option[value="first/nocmd:1.0"]').waitFor({ state: 'attached' });
    const local = await options.evaluateAll((os) => os.map((o) => o.getAttribute('value')));
    assert.ok(local.includes('first/busybox:1.0') && local.includes('first/nocmd:1.0'), local.join());

    await dialog.getByLabel('Image').fill('first/nocmd:1.0');
    await dialog.getByText('This image has no default command: give one.').waitFor();

    // Publishing is offered only when the engine serves networks (501 until it does).
    const networks = await fetch(`${app.base}/engine/networks`, {
      headers: { authorization: `Bearer ${app.token}` },
    });
    await networks.text();
    const portsHint = dialog.getByText(/Publishing ports is not available yet/);
    if (networks.status === 501) {
      await portsHint.waitFor();
      assert.equal(await dialog.getByLabel('Ports').isDisabled(), true);
    } else {
      assert.equal(await portsHint.count(), 0);
      assert.equal(await dialog.getByLabel('Ports').isDisabled(), false);
    }

    await dialog.getByLabel('Environment').fill('NOEQUALS');
    await dialog.getByLabel('Labels').fill('nolabel');
    await dialog.getByLabel('Volumes').fill('/only');
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    const problems = dialog.getByRole('alert').filter({ hasText: 'Check the form' }).locator('li');
    await problems.first().waitFor();
    assert.deepEqual(await problems.allTextContents(), [
      'environment "NOEQUALS" is not KEY=VALUE',
      'label "nolabel" is not KEY=VALUE',
      'volume "/only" is not SOURCE:TARGET[:ro]',
      'first/nocmd:1.0 has no default command: give one',
    ]);
    await session.shot('run-form-errors');

    await dialog.getByLabel('Environment').fill('GREETING=hi');
    await dialog.getByLabel('Labels').fill('app=first');
    await dialog.getByLabel('Volumes').fill('');
    await dialog.getByLabel('Command').fill('sleep 300');
    await dialog.getByLabel('Name').fill('taken');
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    const refused = dialog.getByRole('alert').filter({ hasText: 'The engine refused' });
    await refused.waitFor();
    assert.match((await refused.textContent()) ?? '', /already in use/);
    assert.equal(await problems.count(), 0);
    await dialog.getByLabel('Name').fill('first-run');
    await refused.waitFor({ state: 'detached' });

    // A missing image is pulled first, its progress shown in the dialog.
    await dialog.getByLabel('Image').fill(remote);
    await dialog.getByText('Not on this engine yet: it is pulled first').waitFor();
    await dialog.getByRole('checkbox', { name: 'none', exact: true }).check();
    await dialog.getByLabel('Working directory').fill('/bin');
    await dialog.getByLabel('User').fill('1000:1000');
    await dialog.getByLabel(/Run an init process/).check();
    await page.evaluate(`(() => {
      window.__sawPull = false;
      new MutationObserver(() => {
        if (document.querySelector('dialog .progress .layer progress')) window.__sawPull = true;
      }).observe(document.body, { subtree: true, childList: true });
    })()`);
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('heading', { name: 'first-run' }).waitFor({ timeout: 60_000 });
    assert.equal(await page.evaluate('window.__sawPull'), true, 'the pull showed per-layer progress');
    const c = (await engineGet('/containers/first-run/json')) as {
      Config: {
        Image: string;
        WorkingDir: string;
        User: string;
        Labels: Record<string, string>;
        Env: string[];
      };
      HostConfig: { NetworkMode: string; Init: boolean };
    };
    assert.equal(c.Config.Image, remote);
    assert.equal(c.Config.WorkingDir, '/bin');
    assert.equal(c.Config.User, '1000:1000');
    assert.equal(c.Config.Labels.app, 'first');
    assert.ok(c.Config.Env.includes('GREETING=hi'));
    assert.equal(c.HostConfig.NetworkMode, 'none');
    assert.equal(c.HostConfig.Init, true);
    await session.shot('run-pulled-first');
  });

  test('lists and states: transitions, live times, exit 0, row actions, in use, confirmations, shells, not found', async () => {
    let browserDialogs = 0;
    page.on('dialog', (d) => (browserDialogs++, void d.dismiss()));
    const engineRun = async (name: string, cmd: string[]) => {
      const res = await fetch(`${app.base}/engine/containers/create?name=${name}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ Image: 'first/busybox:1.0', Cmd: cmd }),
      });
      assert.equal(res.status, 201);
      const start = await fetch(`${app.base}/engine/containers/${name}/start`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.token}` },
      });
      assert.equal(start.status, 204);
    };

    // Images: "in use" on the one a container uses; Run… from its row.
    await go('images');
    const used = page.getByRole('row', { name: /first\/busybox:1\.0/ });
    await used.getByText('in use', { exact: true }).waitFor();
    assert.equal(
      await page
        .getByRole('row', { name: /first\/dropped:1\.0/ })
        .getByText('in use')
        .count(),
      0,
    );
    await used.getByRole('button', { name: 'Run…' }).click();
    const run = page.getByRole('dialog', { name: 'Run a container' });
    assert.equal(await run.getByLabel('Image').inputValue(), 'first/busybox:1.0');
    await run.getByLabel('Name').fill('sleeper');
    await run.getByLabel('Command').fill('sleep 300');
    await run.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('heading', { name: 'sleeper' }).waitFor({ timeout: 60_000 });

    // The terminal offers only the shells the container has (busybox: /bin/sh alone).
    await page.getByRole('tab', { name: 'Terminal' }).click();
    const shell = page.getByLabel('Shell');
    await shell.locator('option').first().waitFor({ state: 'attached' });
    assert.deepEqual(await shell.locator('option').allTextContents(), ['/bin/sh']);

    await engineRun('clean-exit', ['true']);
    await engineRun('failed-exit', ['sh', '-c', 'exit 3']);
    await go('containers');
    const row = (name: string) => page.getByTestId('container-row').filter({ hasText: name });
    await row('clean-exit')
      .getByText(/Exited \(0\)/)
      .waitFor({ timeout: 30_000 });
    await row('failed-exit')
      .getByText(/Exited \(3\)/)
      .waitFor({ timeout: 30_000 });
    const colour = (name: string) =>
      row(name)
        .locator('.badge')
        .evaluate(
          (b) =>
            (
              globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
            ).getComputedStyle(b).backgroundColor,
        );
    assert.notEqual(
      await colour('clean-exit'),
      await colour('failed-exit'),
      'exit 0 is not drawn as a failure',
    );

    // sleep as PID 1 ignores SIGTERM: the stop takes the 10 s grace, shown as a transition.
    const sleeper = row('sleeper');
    await sleeper.getByRole('button', { name: 'Stop' }).click();
    await sleeper.getByText('stopping…', { exact: true }).waitFor();
    assert.equal(await sleeper.getByRole('button', { name: 'Stop' }).isDisabled(), true);
    assert.equal(await sleeper.getByRole('button', { name: 'Restart' }).isDisabled(), true);
    assert.equal(await sleeper.getByRole('button', { name: 'Remove' }).isDisabled(), true);
    await session.shot('containers-stopping');
    await sleeper.getByText('exited', { exact: true }).waitFor({ timeout: 30_000 });

    // With the engine quiet, the relative time still moves on.
    const status = row('clean-exit').locator('span.ellipsis').last();
    const before = await status.textContent();
    await status.filter({ hasNotText: before! }).waitFor({ timeout: 15_000 });

    // Row actions: restart, terminal, remove with an in-app confirmation naming the container.
    assert.equal(await row('clean-exit').getByRole('button', { name: 'Terminal' }).isDisabled(), true);
    await row('failed-exit').getByRole('button', { name: 'Remove' }).click();
    const confirmRemove = page.getByRole('dialog', { name: 'Remove failed-exit?' });
    await confirmRemove.waitFor();
    await session.shot('container-remove-confirm');
    await confirmRemove.getByRole('button', { name: 'Remove' }).click();
    await row('failed-exit').waitFor({ state: 'detached', timeout: 30_000 });
    await row('sleeper').getByRole('button', { name: 'Restart' }).click();
    await row('sleeper').getByText('running', { exact: true }).waitFor({ timeout: 30_000 });
    await row('sleeper').getByRole('button', { name: 'Terminal' }).click();
    await page.getByTestId('terminal').waitFor();

    // Removing an image asks first, naming it.
    await go('images');
    await page
      .getByRole('row', { name: /first\/dropped:1\.0/ })
      .getByRole('button', { name: 'Remove' })
      .click();
    const confirmImage = page.getByRole('dialog', { name: 'Remove first/dropped:1.0?' });
    await confirmImage.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('row', { name: /first\/dropped:1\.0/ }).waitFor();

    // A container that does not exist: a not-found page, without the container's actions.
    await page.goto(`${app.base}/#/containers/no-such-container/summary`);
    await page.getByTestId('container-not-found').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Remove' }).count(), 0);
    assert.equal(await page.getByRole('tab').count(), 0);
    await session.shot('container-not-found');
    assert.equal(browserDialogs, 0, 'no browser confirm()');
  });

  test('the events timeline keeps what happened before an engine restart, and resumes after it', async () => {
    const auth = { authorization: `Bearer ${app.token}` };
    const mark = async (name: string) => {
      const res = await fetch(`${app.base}/engine/containers/create?name=${name}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ Image: 'first/busybox:1.0', Cmd: ['true'] }),
      });
      assert.equal(res.status, 201);
    };
    await go('events');
    const events = page.getByRole('list', { name: 'Events' });
    const imageEvents = async () => {
      // Image events only: the container and network events of the session would push them out of view.
      await page.getByLabel('Event type').selectOption('image');
      await events.getByText('load', { exact: true }).first().waitFor();
      await page.getByLabel('Event type').selectOption('');
    };
    // Events from the first minutes of this session, before the screen was ever opened.
    await imageEvents();
    await mark('before-restart');
    await events.getByText('before-restart').waitFor();
    const svcd = async () =>
      (
        (await (await fetch(`${app.base}/api/state`, { headers: auth })).json()) as {
          services: (ServiceView & { since: number })[];
        }
      ).services.find((s) => s.name === 'svcd')!;
    const before = (await svcd()).since;
    const restart = await fetch(`${app.base}/api/services/svcd/restart`, { method: 'POST', headers: auth });
    assert.ok(restart.ok);
    // Up again after the restart: the state's change time moved on.
    for (let s = await svcd(); !(s.status === 'up' && s.since > before); s = await svcd())
      await new Promise((r) => setTimeout(r, 200));
    await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor({ timeout: 60_000 });
    await mark('after-restart');
    await events.getByText('after-restart').waitFor({ timeout: 30_000 });
    await events.getByText('before-restart').waitFor();
    await imageEvents();
    await session.shot('events-after-restart');

    // Each state at the two window sizes, light and dark.
    for (const [w, h] of [
      [1440, 900],
      [1024, 700],
    ])
      for (const scheme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width: w, height: h });
        await page.emulateMedia({ colorScheme: scheme });
        for (const section of ['containers', 'images', 'events', 'registry', 'settings']) {
          await go(section);
          await page.getByRole('heading', { level: 1 }).first().waitFor();
          await session.shot(`${section}-${w}x${h}-${scheme}`);
        }
      }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  // Last: it ends with the app stopped.
  test('registry delete, DOCKER_HOST for the docker CLI, and the page after the app quits', async () => {
    // Delete manifest from the registry browser, confirmed in the app.
    await pushTestImage(app.registryUrl, 'e2e/deleteme', '1.0');
    await go('registry');
    await page.getByTestId('repositories').getByRole('link', { name: 'e2e/deleteme' }).click();
    await page.getByTestId('tags').getByRole('link', { name: '1.0' }).click();
    await page.getByTestId('manifest').getByRole('button', { name: 'Delete manifest' }).click();
    await page
      .getByRole('dialog', { name: /^Delete e2e\/deleteme@sha256:/ })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByTestId('manifest').waitFor({ state: 'detached' });
    assert.equal(
      await page.getByRole('alert').count(),
      0,
      String(await page.getByRole('alert').allInnerTexts()),
    );
    const gone = await fetch(`${app.registryUrl}/v2/e2e/deleteme/manifests/1.0`);
    assert.equal(gone.status, 404);

    // DOCKER_HOST: printed at start, shown and copied in Settings, and the docker CLI takes it.
    assert.match(app.dockerHost, /^unix:\/\/\/.+\/svcd\.sock$/);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.base });
    await go('settings');
    await page.getByTestId('docker-host').waitFor();
    assert.equal(await page.getByTestId('docker-host').textContent(), `export DOCKER_HOST=${app.dockerHost}`);
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByRole('button', { name: 'Copied', exact: true }).waitFor();
    const copied = (await page.evaluate('navigator.clipboard.readText()')) as string;
    const host = copied.replace(/^export DOCKER_HOST=/, '');
    const names = execFileSync('docker', ['ps', '-a', '--format', '{{.Names}}'], {
      env: { ...process.env, DOCKER_HOST: host },
      encoding: 'utf8',
    });
    assert.ok(names.split('\n').includes('sleeper'), names);
    await session.shot('settings-docker-host');

    // When the app quits, the open page says the engine is gone.
    await app.stop();
    await page.getByTestId('engine-status').filter({ hasText: 'Engine down' }).waitFor();
    await session.shot('app-stopped');
  });
});

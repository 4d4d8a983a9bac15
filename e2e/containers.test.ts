// Image and container flows in web mode against the real svcd: pull from the embedded
// registry with per-layer progress, run a container from the dialog, see it running, stop and
// remove it. The detail tabs (logs, terminal, stats, files) are in container-detail.test.ts.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { pushTestImage } from './registry-push';
import { tagImage } from './screen-steps';
import { missingPrerequisite, startSession, type Session, type WebApp } from './web-mode-fixture';

describe('containers and images in web mode', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let app: WebApp;
  let page: Page;
  let image: string;

  before(async () => {
    session = await startSession();
    ({ app, page } = session);
    await pushTestImage(app.registryUrl, 'e2e/busybox', '1.0', true);
    image = `${app.registryUrl.replace('http://', '')}/e2e/busybox:1.0`;
    await page.goto(app.launchUrl + '#/images');
    await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
  });

  after(async () => {
    await session?.stop();
  });

  test('pulls an image from the embedded registry with per-layer progress', async () => {
    await page.getByTestId('images-empty').getByRole('button', { name: 'Pull…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Pull an image' });
    await dialog.getByLabel('Image').fill(image);
    await dialog.getByRole('button', { name: 'Pull', exact: true }).click();
    await dialog.locator('.layer progress').first().waitFor();
    await dialog
      .getByText(/Status: (Downloaded newer image|Image is up to date)/)
      .waitFor({ timeout: 60_000 });
    await session.shot('image-pull');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('cell', { name: image }).waitFor();
    await session.shot('images');
  });

  test('runs a container from the dialog and shows it running', async () => {
    await page.keyboard.press('Alt+1');
    await page.getByRole('button', { name: 'Run container…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run a container' });
    await dialog.getByLabel('Image').fill(image);
    await dialog.getByLabel('Name').fill('e2e-web');
    await dialog.getByLabel('Command').fill('sh -c "echo hello from e2e; sleep 300"');
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    // The run dialog opens the new container's summary, or shows why the engine refused.
    const outcome = page.getByRole('heading', { name: 'e2e-web' }).or(dialog.getByRole('alert'));
    await outcome.first().waitFor({ timeout: 60_000 });
    if (await dialog.isVisible()) {
      await session.shot('run-refused');
      assert.fail(`the engine refused the run: ${await dialog.getByRole('alert').first().textContent()}`);
    }
    await page.locator('.badge.state-running').waitFor({ timeout: 30_000 });
    await session.shot('container-summary');
    await page.keyboard.press('Alt+1');
    const row = page.getByTestId('container-row').filter({ hasText: 'e2e-web' });
    await row.getByText('running', { exact: true }).waitFor();
    await session.shot('containers-running');
  });

  test('stops and removes the selected container with the bulk actions', async () => {
    const row = page.getByTestId('container-row').filter({ hasText: 'e2e-web' });
    await row.getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Stop', exact: true }).first().click();
    await row.getByText('exited', { exact: true }).waitFor({ timeout: 30_000 });
    await page.getByLabel('Bulk actions').getByRole('button', { name: 'Remove' }).click();
    await page
      .getByRole('dialog', { name: 'Remove e2e-web?' })
      .getByRole('button', { name: 'Remove' })
      .click();
    await row.waitFor({ state: 'detached', timeout: 30_000 });
    const list = await fetch(`${app.base}/engine/containers/json?all=1`, {
      headers: { authorization: `Bearer ${app.token}` },
    });
    assert.deepEqual(await list.json(), []);
    // The palette no longer offers the selection's actions: what was selected is gone.
    await page.keyboard.press('Control+k');
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    await palette.getByRole('combobox', { name: 'Command' }).fill('container');
    await palette.getByRole('option').first().waitFor();
    assert.equal(await palette.getByRole('option').filter({ hasText: 'selected container' }).count(), 0);
    await page.keyboard.press('Escape');
  });

  test('tags the image, pushes it to the embedded registry with progress, and browses it there', async () => {
    await page.keyboard.press('Alt+2');
    const target = image.replace('e2e/busybox:1.0', 'e2e/retagged:2.0');
    const row = await tagImage(page, image, target);
    await row.getByRole('button', { name: 'Push…' }).click();
    const push = page.getByRole('dialog', { name: /^Push / });
    await push.getByRole('button', { name: 'Push', exact: true }).click();
    await push.getByText(/digest: sha256:/).waitFor({ timeout: 60_000 });
    await session.shot('image-push');
    await push.getByRole('button', { name: 'Close' }).click();
    await page.keyboard.press('Alt+5');
    await page.getByTestId('repositories').getByRole('link', { name: 'e2e/retagged' }).click();
    await page.getByTestId('tags').getByRole('link', { name: '2.0' }).waitFor();
  });

  test('explains a 409 when removing an image a container uses', async () => {
    const created = await fetch(`${app.base}/engine/containers/create?name=e2e-user`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ Image: image, Cmd: ['true'] }),
    });
    assert.equal(created.status, 201);
    await page.keyboard.press('Alt+2');
    // Removing one of two names only untags; the last name of an image a container uses is refused.
    const retagged = page.getByRole('row', { name: /e2e\/retagged:2\.0/ });
    await retagged.getByRole('button', { name: 'Remove' }).click();
    await page
      .getByRole('dialog', { name: /^Remove .*e2e\/retagged:2\.0\?$/ })
      .getByRole('button', { name: 'Remove' })
      .click();
    await retagged.waitFor({ state: 'detached' });
    await page
      .getByRole('row', { name: new RegExp(image) })
      .getByRole('button', { name: 'Remove' })
      .click();
    await page
      .getByRole('dialog', { name: `Remove ${image}?` })
      .getByRole('button', { name: 'Remove' })
      .click();
    await page.getByRole('alert').filter({ hasText: 'Could not remove the image' }).waitFor();
    await page.getByText('A container uses this image').waitFor();
    await session.shot('image-remove-409');
  });

  test('the events timeline shows what the engine reported', async () => {
    await page.keyboard.press('Alt+6');
    await page.getByRole('heading', { name: 'Events', exact: true }).waitFor();
    const events = page.getByRole('list', { name: 'Events' });
    for (const action of ['create', 'start', 'destroy'])
      await events.getByText(action, { exact: true }).first().waitFor();
    await session.shot('events');
  });
});

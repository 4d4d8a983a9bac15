// The Volumes screen in web mode against the real svcd: each volume with its size and the
// containers using it; create, remove and prune, each confirmed in the app naming what goes.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { engineCaller, pullBusybox, type EngineCall } from './engine-calls';
import { missingPrerequisite, startSession, type Session, type WebApp } from './web-mode-fixture';

describe('the Volumes screen in web mode', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let app: WebApp;
  let page: Page;
  let engine: EngineCall;
  const row = (name: string) => page.locator(`tr[data-volume="${name}"]`);

  before(async () => {
    session = await startSession();
    ({ app, page } = session);
    engine = engineCaller(app);
    const image = await pullBusybox(app);
    await engine('POST', '/volumes/create', { Name: 'e2e-data' });
    await engine('POST', '/volumes/create', { Name: 'e2e-spare' });
    const { Id } = (await engine('POST', '/containers/create?name=vol-user', {
      Image: image,
      Cmd: ['sh', '-c', 'head -c 3000 /dev/zero > /data/blob'],
      HostConfig: { Binds: ['e2e-data:/data'] },
    })) as { Id: string };
    await engine('POST', `/containers/${Id}/start`);
    await engine('POST', `/containers/${Id}/wait`);
    await page.goto(app.launchUrl + '#/volumes');
    await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
  });

  after(async () => {
    await session?.stop();
  });

  test('lists each volume with its size and the containers using it', async () => {
    await page.getByRole('heading', { name: 'Volumes', exact: true }).waitFor();
    await row('e2e-data').getByText('vol-user').waitFor();
    await row('e2e-data').getByText('3.0 kB').waitFor();
    await row('e2e-spare').getByText('unused').waitFor();
    await session.shot('volumes');
  });

  test('creates a volume, and removes it after an in-app confirmation naming it', async () => {
    await page.getByLabel('New volume name').fill('e2e-ui');
    await page.getByRole('button', { name: 'Create volume' }).click();
    await row('e2e-ui').waitFor();
    await row('e2e-ui').getByRole('button', { name: 'Remove' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove volume e2e-ui?' });
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await row('e2e-ui').waitFor({ state: 'detached' });
    const left = ((await engine('GET', '/volumes')) as { Volumes: { Name: string }[] }).Volumes;
    assert.deepEqual(left.map((v) => v.Name).sort(), ['e2e-data', 'e2e-spare']);
  });

  test('prunes the unused volumes only, listing them before it does', async () => {
    await page.getByRole('button', { name: 'Prune unused' }).click();
    const dialog = page.getByRole('dialog', { name: 'Prune unused volumes?' });
    await dialog.getByText('e2e-spare').waitFor();
    assert.doesNotMatch(await dialog.innerText(), /e2e-data/);
    await dialog.getByRole('button', { name: 'Prune' }).click();
    await page.getByRole('status').filter({ hasText: 'Pruned 1 volume' }).waitFor();
    await row('e2e-spare').waitFor({ state: 'detached' });
    await row('e2e-data').waitFor();
  });
});

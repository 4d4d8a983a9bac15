// The Volumes screen in web mode against the real svcd: each volume with its size and the
// containers using it (links to them); create in its dialog (a tmpfs with its size among the
// local driver's kinds), use from the run dialog, browse, removal refused while a container
// uses it and said so in words, then removal and prune, each confirmed in the app naming what goes.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { engineCaller, pullBusybox, type EngineCall } from './engine-calls';
import {
  missingPrerequisite,
  runFromPalette,
  startSession,
  type Session,
  type WebApp,
} from './web-mode-fixture';

describe('the Volumes screen in web mode', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let app: WebApp;
  let page: Page;
  let engine: EngineCall;
  let image: string;
  const row = (name: string) => page.locator(`tr[data-volume="${name}"]`);

  before(async () => {
    session = await startSession();
    ({ app, page } = session);
    engine = engineCaller(app);
    image = await pullBusybox(app);
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

  test('lists the containers using a volume as links to them, and offers no removal', async () => {
    const remove = row('e2e-data').getByRole('button', { name: /Volume e2e-data is in use by vol-user/ });
    assert.equal(await remove.isDisabled(), true);
    await row('e2e-data').getByText('in use').waitFor();
    await row('e2e-data').getByRole('link', { name: 'vol-user' }).click();
    await page.getByRole('heading', { name: 'vol-user' }).waitFor();
    // The container's page links back to the volume.
    await page.getByRole('link', { name: 'volume e2e-data' }).click();
    await page.getByRole('row').filter({ hasText: 'blob' }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Close' }).click();
    // From the palette too: said in words, no confirmation, no engine refusal with an id.
    await runFromPalette(page, 'Remove volume e2e-data');
    await page
      .getByRole('status')
      .or(page.getByRole('alert'))
      .filter({ hasText: 'Volume e2e-data is in use by vol-user: remove them first' })
      .waitFor();
    assert.equal(await page.getByRole('dialog', { name: 'Remove volume e2e-data?' }).count(), 0);
  });

  test('a volume created in its dialog, used from the run dialog, browsed, refused removal, removed', async () => {
    await page.getByRole('button', { name: 'New volume…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a volume' });
    await dialog.getByLabel('Name').fill('e2e-ui');
    await dialog.getByRole('radio', { name: /Memory \(tmpfs\)/ }).check();
    await dialog.getByLabel('Size').fill('lots');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'size "lots" is not a number' }).waitFor();
    await dialog.getByLabel('Size').fill('16m');
    await dialog.getByLabel('Labels').fill('purpose=e2e');
    await session.shot('volume-create');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await row('e2e-ui').waitFor();
    const made = (await engine('GET', '/volumes/e2e-ui')) as {
      Options: Record<string, string>;
      Labels: object;
    };
    assert.deepEqual(made.Options, { type: 'tmpfs', device: 'tmpfs', o: 'size=16m' });
    assert.deepEqual(made.Labels, { purpose: 'e2e' });

    await page.evaluate(`location.hash = '#/containers'`);
    await page.getByRole('button', { name: 'Run container…' }).click();
    const run = page.getByRole('dialog', { name: 'Run a container' });
    await run.getByLabel('Image').fill(image);
    await run.getByLabel('Name').fill('ui-user');
    await run.getByLabel('Command').fill(`sh -c "echo kept > /data/note.txt; sleep 600"`);
    await run.getByLabel('Volumes').fill('e2e-ui:/data');
    await run.getByRole('checkbox', { name: 'none', exact: true }).check();
    await run.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('heading', { name: 'ui-user' }).waitFor();

    await page.evaluate(`location.hash = '#/volumes'`);
    await row('e2e-ui').getByRole('link', { name: 'ui-user' }).waitFor();
    await row('e2e-ui').getByRole('button', { name: 'Browse files of volume e2e-ui' }).click();
    await page.getByRole('row').filter({ hasText: 'note.txt' }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Close' }).click();
    assert.equal(
      await row('e2e-ui')
        .getByRole('button', { name: /is in use by ui-user/ })
        .isDisabled(),
      true,
    );
    // Asked directly, the engine refuses (409); the app would say it in words (volume-form.ts).
    const res = await fetch(`${app.base}/engine/volumes/e2e-ui`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${app.token}` },
    });
    assert.equal(res.status, 409);

    await engine('DELETE', '/containers/ui-user?force=1');
    await row('e2e-ui').getByText('unused').waitFor();
    await row('e2e-ui').getByRole('button', { name: 'Remove volume e2e-ui' }).click();
    await page
      .getByRole('dialog', { name: 'Remove volume e2e-ui?' })
      .getByRole('button', { name: 'Remove' })
      .click();
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

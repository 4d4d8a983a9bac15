// The Images screen beyond the list, in web mode against the real svcd: a failed load says why, an
// import takes a message and Dockerfile changes, a save is named after the image, and an image's
// detail shows its layers' files (added, changed, removed by whiteouts and opaque directories),
// its history and its containers, every view reachable from the command palette, at 1024×700.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { engineCaller, type EngineCall } from './engine-calls';
import { makeImage, makeLayer, saveArchive, withLayer } from './image-archives';
import { importRootfs } from './screen-steps';
import { missingPrerequisite, runFromPalette, startSession, type Session } from './web-mode-fixture';

describe('image detail and layer explorer in web mode', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let page: Page;
  let engine: EngineCall;
  const name = 'layers/app:1.0';

  before(async () => {
    session = await startSession();
    page = session.page;
    engine = engineCaller(session.app);
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.goto(session.app.launchUrl + '#/images');
    await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
  });

  after(async () => {
    await session?.stop();
  });

  const palette = (text: string) => runFromPalette(page, text);

  test('a broken archive fails with a toast that says why; a dropped one loads with its layers', async () => {
    await page.getByTestId('images-empty').waitFor();
    await palette('Load image from a file');
    const load = page.getByRole('dialog', { name: 'Load an image archive' });
    await load.getByLabel('Archive (from docker save)').setInputFiles({
      name: 'broken.tar',
      mimeType: 'application/x-tar',
      buffer: Buffer.from('this is not a tar archive'.repeat(40)),
    });
    await load.getByRole('button', { name: 'Load', exact: true }).click();
    const failed = page.getByTestId('toasts').getByRole('alert');
    await failed.filter({ hasText: 'Load of broken.tar failed' }).waitFor({ timeout: 60_000 });
    await load.getByRole('button', { name: 'Close' }).click();

    // A base with a file to change, one to remove and a directory to make opaque; the top layer.
    const base = makeImage(true);
    const middle = makeLayer({
      'etc/motd': 'hi\n',
      'var/cache/old-a': 'a',
      'var/cache/old-b': 'b',
      'app/': '',
    });
    const top = makeLayer({
      'hello.txt': 'changed by the top layer\n',
      'etc/.wh.motd': '',
      'var/cache/.wh..wh..opq': '',
      'var/cache/fresh': 'fresh',
      'app/server': 'x'.repeat(2048),
    });
    const parts = withLayer(withLayer(base, middle, 'ADD files /'), top, 'RUN update');
    const archive = saveArchive(parts, name).toString('base64');
    const transfer = await page.evaluateHandle(`(() => {
      const dt = new DataTransfer();
      const bytes = Uint8Array.from(atob('${archive}'), (c) => c.charCodeAt(0));
      dt.items.add(new File([bytes], 'app.tar', { type: 'application/x-tar' }));
      return dt;
    })()`);
    const screen = page.locator('main section.screen');
    await screen.dispatchEvent('dragover', { dataTransfer: transfer });
    // While a file is over the screen, the screen says what a drop does.
    await page.getByText('Drop the archive to load it').waitFor();
    await session.shot('image-drop-hint');
    await screen.dispatchEvent('drop', { dataTransfer: transfer });
    assert.equal(await page.getByText('Drop the archive to load it').count(), 0);
    await page.getByTestId('toasts').getByText(`Loaded image: ${name}`).waitFor({ timeout: 60_000 });
    await load.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('row', { name: new RegExp(name) }).waitFor();
  });

  test("the layer explorer shows each layer's added, changed and removed files as a tree", async () => {
    await page.getByRole('link', { name }).click();
    await page.getByRole('heading', { name }).waitFor();
    const summary = page.getByRole('tabpanel');
    await summary.getByText('linux/amd64').waitFor();
    assert.match(await summary.innerText(), /Layers\s+3/);

    await page.getByRole('tab', { name: 'Layers' }).click();
    const layers = page.getByRole('list', { name: 'Layers' });
    await layers.getByRole('button').nth(2).waitFor({ timeout: 60_000 });
    assert.equal(await layers.getByRole('button').count(), 3);
    await session.shot('image-layers-first');
    // History names the step that made each layer.
    assert.match(await layers.getByRole('button').nth(2).innerText(), /RUN update/);

    await layers.getByRole('button', { name: /Layer 3/ }).click();
    const tree = page.getByRole('tree', { name: 'Files of layer 3' });
    await tree.waitFor();
    assert.match(
      await page.getByTestId('layer-summary').innerText(),
      /Layer 3: 2 paths added, 1 changed, 3 removed/,
    );
    const item = (path: string) => tree.getByRole('treeitem', { name: path, exact: true });
    // Top-level directories are open; deeper ones open on a click or Enter.
    assert.match(await item('hello.txt').innerText(), /hello\.txt\s*C/);
    assert.match(await item('etc/motd').innerText(), /motd\s*D/);
    assert.match(await item('var/cache').innerText(), /cache\s*O/);
    assert.equal(await item('var/cache/fresh').count(), 0);
    await item('var/cache').getByRole('button').first().press('Enter');
    assert.match(await item('var/cache/old-a').innerText(), /old-a\s*D/);
    assert.match(await item('var/cache/fresh').innerText(), /fresh\s*A/);
    assert.match(await item('app/server').innerText(), /server\s*A[\s\S]*2\.0 kB/);

    // The keys of a file manager: Left closes, Right opens, Down goes to the first child, Left
    // from a file goes back to its directory.
    const cache = item('var/cache');
    const focused = () => page.evaluate('document.activeElement.innerText') as Promise<string>;
    await cache.getByRole('button').first().focus();
    await page.keyboard.press('ArrowLeft');
    assert.equal(await cache.getAttribute('aria-expanded'), 'false');
    await page.keyboard.press('ArrowRight');
    assert.equal(await cache.getAttribute('aria-expanded'), 'true');
    await page.keyboard.press('ArrowDown');
    assert.match(await focused(), /^fresh/);
    await page.keyboard.press('ArrowDown');
    assert.match(await focused(), /^old-a/);
    await page.keyboard.press('ArrowLeft');
    assert.match(await focused(), /^cache/);

    // Only what the layer removed.
    await page.getByRole('radio', { name: 'Removed' }).click();
    await item('etc/motd').waitFor();
    assert.equal(await item('hello.txt').count(), 0);
    await page.getByRole('radio', { name: 'All' }).click();
    await page.getByLabel('Filter files').fill('fresh');
    await item('var/cache/fresh').waitFor();
    assert.equal(await item('hello.txt').count(), 0);
    await session.shot('image-layers-tree');
    const fits = (await page.evaluate(
      `document.querySelector('main').scrollWidth <= document.querySelector('main').clientWidth`,
    )) as boolean;
    assert.ok(fits, 'the layer explorer fits 1024×700 without scrolling sideways');
  });

  test('history and the containers made from the image, linked', async () => {
    await page.getByRole('tab', { name: 'History' }).click();
    const history = page.getByRole('table', { name: 'History' });
    await history.getByText('RUN update').waitFor();
    await history.getByText('e2e fixture').waitFor();

    await page.getByRole('tab', { name: 'Containers' }).click();
    await page.getByText('No container uses this image').waitFor();
    const { Id } = (await engine('POST', '/containers/create?name=from-layers', {
      Image: name,
      Cmd: ['true'],
      HostConfig: { NetworkMode: 'none' },
    })) as { Id: string };
    // Container events refresh the list.
    const link = page.getByRole('table', { name: 'Containers' }).getByRole('link', { name: 'from-layers' });
    await link.click();
    await page.waitForURL(new RegExp(`#/containers/${Id}`));
    await page.getByRole('heading', { name: 'from-layers' }).waitFor();
  });

  test('the palette opens each view of an image, and saves it to a file named after it', async () => {
    await palette(`Show layers and files of image ${name}`);
    await page.getByRole('list', { name: 'Layers' }).waitFor();
    assert.match(page.url(), /#\/images\/sha256%3A[0-9a-f]{64}\/layers$/);
    await palette(`Show history of image ${name}`);
    await page.getByRole('table', { name: 'History' }).waitFor();
    await palette(`Show containers of image ${name}`);
    await page
      .getByRole('table', { name: 'Containers' })
      .getByRole('link', { name: 'from-layers' })
      .waitFor();
    await palette(`Show details of image ${name}`);
    await page.getByRole('tabpanel').getByText('linux/amd64').waitFor();

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      palette(`Save image ${name} to a file`),
    ]);
    assert.equal(download.suggestedFilename(), 'layers_app_1.0.tar');
    assert.equal(await download.failure(), null);
    const [fromScreen] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Save' }).click(),
    ]);
    assert.equal(fromScreen.suggestedFilename(), 'layers_app_1.0.tar');
  });

  test('import takes a message and Dockerfile changes besides the command', async () => {
    await page.evaluate(`location.hash = '#/images'`);
    await palette('Import a root filesystem');
    const imp = page.getByRole('dialog', { name: 'Import a root filesystem' });
    await importRootfs(imp, {
      repo: 'layers/imported',
      tag: '3.0',
      command: 'cat /hello.txt',
      more: { Message: 'made by the e2e', 'Other changes': 'ENV MODE=e2e\nWORKDIR /srv' },
    });
    await page.getByRole('row', { name: /layers\/imported:3\.0/ }).waitFor();
    const inspect = (await engine('GET', '/images/layers/imported:3.0/json')) as {
      Comment: string;
      Config: { Cmd: string[]; Env: string[]; WorkingDir: string };
    };
    assert.deepEqual(inspect.Config.Cmd, ['cat', '/hello.txt']);
    assert.ok(inspect.Config.Env.includes('MODE=e2e'), JSON.stringify(inspect.Config.Env));
    assert.equal(inspect.Config.WorkingDir, '/srv');
    const history = (await engine('GET', '/images/layers/imported:3.0/history')) as { Comment: string }[];
    assert.equal(history[0].Comment, 'made by the e2e');
  });
});

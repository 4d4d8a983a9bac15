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
import { missingPrerequisite, startSession, type Session, type WebApp } from './web-mode-fixture';

describe('first use in web mode', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let app: WebApp;
  let page: Page;
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
    await imp.getByLabel('Root filesystem (a tar)').setInputFiles({
      name: 'rootfs.tar',
      mimeType: 'application/x-tar',
      buffer: makeImage(true).layer,
    });
    await imp.getByLabel('Repository').fill('first/imported');
    await imp.getByLabel('Tag').fill('2.0');
    await imp.getByLabel('Command').fill('sh -c "cat /hello.txt"');
    await imp.getByRole('button', { name: 'Import', exact: true }).click();
    await imp.getByText(/sha256:/).waitFor({ timeout: 60_000 });
    await session.shot('first-image-imported');
    await imp.getByRole('button', { name: 'Close' }).click();
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
});

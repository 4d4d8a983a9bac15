// The registry browser in depth, in web mode: the embedded registry plus a second svc-registry
// with token auth (its token server checks an htpasswd file, all on loopback) added in the UI,
// and a second svcd added as an engine. Catalog and tags page by page, search over the whole
// catalog, manifests of an index and of an image with its config and history, copy between the
// registries, pull into and push from the second engine, delete a tag and a manifest.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { writeHtpasswd } from '../daemon/registry/testing/htpasswd-file';
import { startRegistry, type RegistryProcess } from '../daemon/registry/testing/registry-process';
import { destroySvcd, startSvcd, type SvcdInstance } from '../daemon/testing/svcd-harness';
import { addTags, pushRepositories, pushTestImage, pushTestIndex } from './registry-push';
import { missingPrerequisite, startSession, type Session } from './web-mode-fixture';

const PASSWORD = 'e2e-token-pass';

describe('the registry browser in depth', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let page: Page;
  let dir: string;
  let guarded: RegistryProcess;
  let second: SvcdInstance;
  let hello: { digest: string };
  let indexDigest: string;

  const toast = (text: string | RegExp) =>
    page.getByTestId('toasts').getByRole('status').filter({ hasText: text }).waitFor({ timeout: 60_000 });
  const repositories = () => page.getByTestId('repositories');
  const pickRegistry = (which: 'embedded' | 'guarded') =>
    page.getByRole('combobox', { name: 'Registry' }).selectOption({
      label: which === 'embedded' ? 'Embedded (svc-registry)' : 'guarded',
    });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'e2e-registry-browser-'));
    const htpasswd = join(dir, 'htpasswd');
    await writeHtpasswd(htpasswd, { alice: PASSWORD });
    guarded = await startRegistry({
      config: { auth: { token: { htpasswd, access: [{ account: 'alice', name: '*', actions: ['*'] }] } } },
    });
    second = await startSvcd();
    session = await startSession();
    page = session.page;
    const reg = session.app.registryUrl;
    hello = await pushTestImage(reg, 'e2e/hello', '1.0', true);
    await addTags(reg, 'e2e/hello', '1.0', ['1.1']);
    // 55 repositories and 55 tags: more than one page (50) of each.
    await pushRepositories(reg, 'e2e/page', 55);
    await addTags(
      reg,
      'e2e/page-00',
      '1.0',
      Array.from({ length: 54 }, (_, i) => `t${String(i).padStart(2, '0')}`),
    );
    indexDigest = await pushTestIndex(reg, 'e2e/multi', 'latest');
    const added = await fetch(`${session.app.base}/api/engines`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.app.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'second', endpoint: `unix://${second.socket}` }),
    });
    assert.equal(added.status, 201);
    await page.goto(`${session.app.launchUrl}#/registry`);
    await repositories().getByRole('link', { name: 'e2e/hello' }).waitFor();
  });

  after(async () => {
    await session?.stop();
    await destroySvcd(second);
    await guarded?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('the catalog pages by 50 with Load more; search spans every page', async () => {
    const links = repositories().getByRole('link');
    assert.equal(await links.count(), 50);
    await page.getByText('50 repositories shown').waitFor();
    await page
      .getByRole('navigation', { name: 'Repositories' })
      .getByRole('button', { name: 'Load more' })
      .click();
    await page.getByText('57 repositories', { exact: true }).waitFor();
    assert.equal(await links.count(), 57);
    // The matches are past the first page of 50.
    await page.reload();
    await page.getByRole('searchbox', { name: 'Search repositories' }).fill('page-5');
    await page.getByTestId('search-summary').filter({ hasText: '5 matches in 1 catalog page' }).waitFor();
    assert.deepEqual(await links.allInnerTexts(), [
      'e2e/page-50',
      'e2e/page-51',
      'e2e/page-52',
      'e2e/page-53',
      'e2e/page-54',
    ]);
    await session.shot('registry-browser-search');
    await page.getByRole('searchbox', { name: 'Search repositories' }).fill('');
  });

  test('tags page by 50 too', async () => {
    await page.goto(`${session.app.launchUrl}#/registry/e2e%2Fpage-00`);
    const tags = page.getByTestId('tags').getByRole('link');
    await page.getByText('50 tags shown').waitFor();
    await page.getByRole('navigation', { name: 'Tags' }).getByRole('button', { name: 'Load more' }).click();
    await page.getByText('55 tags', { exact: true }).waitFor();
    assert.equal(await tags.count(), 55);
  });

  test('an index lists its platforms, each a link to its manifest with layers, config and history', async () => {
    await page.goto(`${session.app.launchUrl}#/registry/e2e%2Fmulti/latest`);
    const manifest = page.getByTestId('manifest');
    await manifest.getByText(indexDigest).first().waitFor();
    assert.equal(
      await manifest.getByTestId('media-type').innerText(),
      'application/vnd.oci.image.index.v1+json',
    );
    assert.equal(await manifest.getByTestId('platforms').innerText(), 'linux/amd64, linux/arm64/v8');
    const platforms = manifest.getByRole('table', { name: 'Platforms of the index' });
    await session.shot('registry-browser-index');
    await platforms.getByRole('row').filter({ hasText: 'linux/arm64/v8' }).getByRole('link').click();
    await manifest.getByRole('heading', { name: /^e2e\/multi@sha256:/ }).waitFor();
    assert.equal(
      await manifest.getByTestId('media-type').innerText(),
      'application/vnd.docker.distribution.manifest.v2+json',
    );
    await manifest.getByTestId('platforms').filter({ hasText: 'linux/arm64/v8' }).waitFor();
    const layers = manifest.getByRole('table', { name: 'Layers' });
    assert.equal(await layers.getByRole('row').count(), 2);
    assert.match(
      await layers.getByRole('row').nth(1).innerText(),
      /sha256:[0-9a-f]{64}[\s\S]*\d+(\.\d+)? (B|kB|MB)/,
    );
    const config = manifest.getByTestId('image-config');
    await config.getByText('echo arm').waitFor();
    await config.getByText('PATH=/bin').waitFor();
    await config.getByRole('table', { name: 'History' }).getByText('e2e fixture').waitFor();
    // Deleting by digest names no tag to delete.
    assert.equal(await manifest.getByRole('button', { name: 'Delete tag' }).count(), 0);
    await session.shot('registry-browser-manifest');
    // A manifest by digest is pulled by digest.
    const digest = (await manifest.getByRole('heading').first().innerText()).replace(/^e2e\/multi@/, '');
    await manifest.getByRole('button', { name: 'Pull…' }).click();
    const pull = page.getByRole('dialog', { name: 'Pull an image' });
    const reference = `${session.app.registryUrl.replace('http://', '')}/e2e/multi@${digest}`;
    assert.equal(await pull.getByLabel('Image').inputValue(), reference);
    await pull.getByRole('button', { name: 'Pull', exact: true }).click();
    await toast(`Pulled ${reference}`);
    await pull.getByRole('button', { name: 'Close' }).click();
  });

  test('adds the token-auth registry in the UI: a wrong password is refused, the right one kept main-side', async () => {
    // From the command palette (the toolbar's "Add registry…" does the same).
    await page.keyboard.press('Control+k');
    await page
      .getByRole('dialog', { name: 'Command palette' })
      .getByRole('combobox', { name: 'Command' })
      .fill('add a registry');
    await page.keyboard.press('Enter');
    const form = page.getByRole('form', { name: 'Add a registry' });
    await form.getByLabel('Name', { exact: true }).fill('guarded');
    await form.getByLabel('URL', { exact: true }).fill(guarded.url);
    await form.getByLabel(/Bearer token/).check();
    await form.getByLabel('Username', { exact: true }).fill('alice');
    await form.getByLabel('Password', { exact: true }).fill('not-it');
    await form.getByRole('button', { name: 'Add registry' }).click();
    await form.getByRole('alert').filter({ hasText: 'refused the credentials' }).waitFor();
    await session.shot('registry-browser-add');
    await form.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await form.getByRole('button', { name: 'Add registry' }).click();
    await form.waitFor({ state: 'detached' });
    await page.getByText(`${guarded.url} · token auth as alice`).waitFor();
    await page.getByTestId('registry-empty').waitFor();
    assert.ok(!(await page.content()).includes(PASSWORD));
    const list = await (
      await fetch(`${session.app.base}/api/registries`, {
        headers: { authorization: `Bearer ${session.app.token}` },
      })
    ).text();
    assert.ok(!list.includes(PASSWORD));
  });

  test('copies an image from the embedded registry to the token-auth one, with progress', async () => {
    await pickRegistry('embedded');
    await page.goto(`${session.app.launchUrl}#/registry/e2e%2Fhello/1.0`);
    await page.getByTestId('tag-actions').getByRole('button', { name: 'Copy to…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Copy e2e/hello:1.0' });
    await dialog.getByLabel('To registry').selectOption({ label: `guarded (${guarded.host})` });
    await dialog.getByLabel('As repository:tag').fill('copied/hello:1.0');
    await dialog.getByRole('button', { name: 'Copy', exact: true }).click();
    await toast(`Copied to ${guarded.host}/copied/hello:1.0`);
    // A row per blob, and the stream's last words.
    await dialog
      .getByText(/^Copied \d/)
      .first()
      .waitFor();
    await dialog.getByText(`Digest: ${hello.digest}`).waitFor();
    await session.shot('registry-browser-copy', page);
    await dialog.getByRole('button', { name: 'Close' }).click();

    await pickRegistry('guarded');
    await repositories().getByRole('link', { name: 'copied/hello' }).click();
    await page.getByTestId('tags').getByRole('link', { name: '1.0' }).click();
    await page.getByTestId('manifest').getByText(hello.digest).waitFor();
  });

  test('pulls from the token-auth registry into the second engine, and pushes from it back', async () => {
    const reference = `${guarded.host}/copied/hello:1.0`;
    await page.getByTestId('tag-actions').getByRole('button', { name: 'Pull…' }).click();
    const pull = page.getByRole('dialog', { name: 'Pull an image' });
    assert.equal(await pull.getByLabel('Image').inputValue(), reference);
    await pull.getByLabel('Engine').selectOption({ label: 'second' });
    await pull.getByRole('button', { name: 'Pull', exact: true }).click();
    await toast(`Pulled ${reference}`);
    const images = JSON.parse((await second.request('GET', '/images/json')).body.toString()) as {
      RepoTags: string[];
    }[];
    assert.ok(
      images.some((i) => i.RepoTags.includes(reference)),
      JSON.stringify(images),
    );
    await pull.getByRole('button', { name: 'Close' }).click();

    await page.getByRole('button', { name: 'Push from an engine…' }).click();
    const push = page.getByRole('dialog', { name: 'Push to guarded' });
    await push.getByLabel('Engine').selectOption({ label: 'second' });
    await push.getByLabel('Image').selectOption(reference);
    await push.getByLabel('As repository:tag').fill('pushed/hello:2.0');
    await push.getByRole('button', { name: 'Push', exact: true }).click();
    await toast(`Pushed ${guarded.host}/pushed/hello:2.0`);
    await session.shot('registry-browser-push', page);
    await push.getByRole('button', { name: 'Close' }).click();
    await page.reload();
    await repositories().getByRole('link', { name: 'pushed/hello' }).waitFor();
  });

  test('deletes a tag (the manifest and its other tag stay), then a manifest; each confirmation names it', async () => {
    await pickRegistry('embedded');
    await page.goto(`${session.app.launchUrl}#/registry/e2e%2Fhello/1.1`);
    await page.getByTestId('tag-actions').getByRole('button', { name: 'Delete tag' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete tag e2e/hello:1.1?' });
    await confirm.getByText(hello.digest).waitFor();
    await confirm.getByText(/garbage collection/).waitFor();
    await session.shot('registry-browser-delete-tag');
    await confirm.getByRole('button', { name: 'Delete tag' }).click();
    const tags = page.getByTestId('tags');
    await tags.getByRole('link', { name: '1.1' }).waitFor({ state: 'detached' });
    await tags.getByRole('link', { name: '1.0' }).click();
    await page.getByTestId('manifest').getByText(hello.digest).waitFor();

    await pickRegistry('guarded');
    await page.goto(`${session.app.launchUrl}#/registry/pushed%2Fhello/2.0`);
    const manifest = page.getByTestId('manifest');
    await manifest
      .getByText(/^sha256:/)
      .first()
      .waitFor();
    await manifest.getByRole('button', { name: 'Delete manifest' }).click();
    const del = page.getByRole('dialog', { name: /^Delete pushed\/hello@sha256:[0-9a-f]{64}\?$/ });
    await del.getByText(/garbage collection/).waitFor();
    await del.getByRole('button', { name: 'Delete', exact: true }).click();
    await manifest.waitFor({ state: 'detached' });
    await page
      .getByRole('navigation', { name: 'Tags' })
      .getByText(/^No tags/)
      .waitFor();
    assert.equal(
      await page.getByRole('alert').count(),
      0,
      String(await page.getByRole('alert').allInnerTexts()),
    );
  });

  test('removing a registry forgets it and its credentials; the registry keeps its images', async () => {
    await pickRegistry('guarded');
    await page.getByRole('button', { name: 'Remove registry guarded' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove registry guarded?' });
    await confirm.getByText(guarded.url).waitFor();
    await confirm.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('combobox', { name: 'Registry' }).locator('option', { hasText: 'guarded' }).waitFor({
      state: 'detached',
    });
    assert.equal(await page.getByRole('combobox', { name: 'Registry' }).inputValue(), 'embedded');
    const settings = await readFile(join(session.app.dir, 'data', 'settings.json'), 'utf8');
    assert.ok(!settings.includes(PASSWORD));
    const token = await fetch(
      `${guarded.url}/token?service=svc-registry&scope=repository:copied/hello:pull`,
      {
        headers: { authorization: `Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}` },
      },
    );
    const { token: t } = (await token.json()) as { token: string };
    const kept = await fetch(`${guarded.url}/v2/copied/hello/tags/list`, {
      headers: { authorization: `Bearer ${t}` },
    });
    assert.deepEqual(await kept.json(), { name: 'copied/hello', tags: ['1.0'] });
  });
});

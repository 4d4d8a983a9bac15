// Steps several e2e suites take on the same screens, as a user would: the combined view of all
// engines, adding an engine, tagging an image from its row, filling the import dialog, a command
// in a terminal, the layer explorer of the busybox test image, a volume's file browser.
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import type { EngineApi } from '../daemon/testing/engine-client';
import { pollUntil } from '../daemon/testing/poll';
import { makeImage } from './image-archives';

/**
 * All engines: container `own` of engine `engine` and `other` of the embedded engine both listed,
 * each with its engine's name; `shot` is taken there. The filter on `engine` then leaves `own`.
 */
export async function checkCombinedView(
  page: Page,
  engine: string,
  own: string,
  other: string,
  shot: () => Promise<void>,
): Promise<void> {
  await page.getByRole('link', { name: 'All engines' }).click();
  const table = page.getByRole('table', { name: 'Containers of all engines' });
  const rowOf = (name: string) => table.getByRole('row').filter({ hasText: name });
  await rowOf(own).waitFor();
  await rowOf(other).waitFor();
  assert.equal(await rowOf(own).getByRole('cell').first().innerText(), engine);
  assert.equal(await rowOf(other).getByRole('cell').first().innerText(), 'Local (svcd)');
  await shot();
  await page.getByLabel('Filter by engine').selectOption({ label: engine });
  await rowOf(other).waitFor({ state: 'detached' });
  assert.equal(await rowOf(own).count(), 1);
}

/** Tags the image of the Images row named `source` as `target`; answers the new name's row. */
export async function tagImage(page: Page, source: string, target: string): Promise<Locator> {
  await page
    .getByRole('row', { name: new RegExp(source) })
    .getByRole('button', { name: 'Tag…' })
    .click();
  const dialog = page.getByRole('dialog', { name: /^Tag / });
  await dialog.getByLabel('New name').fill(target);
  await dialog.getByRole('button', { name: 'Tag', exact: true }).click();
  const row = page.getByRole('row', { name: new RegExp(target) });
  await row.waitFor();
  return row;
}

/**
 * Fills the open import dialog `imp` (a rootfs, runnable unless `layer` gives another, its name and
 * command), then imports; answers the toast's text.
 */
export async function importRootfs(
  imp: Locator,
  v: { repo: string; tag: string; command: string; more?: Record<string, string>; layer?: Buffer },
): Promise<string> {
  await imp.getByLabel('Root filesystem (a tar)').setInputFiles({
    name: 'rootfs.tar',
    mimeType: 'application/x-tar',
    buffer: v.layer ?? makeImage(true).layer,
  });
  await imp.getByLabel('Repository').fill(v.repo);
  await imp.getByLabel('Tag').fill(v.tag);
  await imp.getByLabel('Command').fill(v.command);
  for (const [label, value] of Object.entries(v.more ?? {})) await imp.getByLabel(label).fill(value);
  await imp.getByRole('button', { name: 'Import', exact: true }).click();
  // Done: the dialog closes itself and the toast names the image by its name.
  const toast = imp.page().getByTestId('toasts').getByText(`Imported ${v.repo}:${v.tag} (`);
  await toast.waitFor({ timeout: 60_000 });
  await imp.waitFor({ state: 'detached' });
  return toast.innerText();
}

/** On a container's page: its Terminal tab, once connected, runs `command` and shows `line`. */
export async function runInTerminal(page: Page, command: string, line: string): Promise<void> {
  await page.getByRole('tab', { name: 'Terminal' }).click();
  await page.locator('.badge.term-connected').waitFor({ timeout: 20_000 });
  const term = page.getByTestId('terminal');
  await term.click();
  await page.keyboard.type(command);
  await page.keyboard.press('Enter');
  await pollUntil(
    `${line} in the terminal`,
    async () =>
      (await term.locator('.xterm-rows > div').allInnerTexts()).some((t) => t.trim() === line)
        ? true
        : undefined,
    { timeoutMs: 20_000, intervalMs: 200 },
  );
}

/** Settings: adds engine `name` at `endpoint` and waits until its row says it is up, as `up`. */
export async function addEngine(page: Page, name: string, endpoint: string, up: RegExp): Promise<void> {
  const form = page.getByRole('form', { name: 'Add an engine' });
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('Endpoint').fill(endpoint);
  await form.getByRole('button', { name: 'Add engine' }).click();
  await page.getByTestId(`engine-${name}`).getByText(up).waitFor({ timeout: 90_000 });
}

/** Images: the layer explorer of `image` (the busybox test image) shows bin/busybox added. */
export async function openBusyboxLayer(page: Page, image: string): Promise<Locator> {
  await page.getByRole('link', { name: image }).click();
  await page.getByRole('tab', { name: 'Layers' }).click();
  const tree = page.getByRole('tree', { name: 'Files of layer 1' });
  await tree.waitFor({ timeout: 60_000 });
  assert.match(
    await tree.getByRole('treeitem', { name: 'bin/busybox', exact: true }).innerText(),
    /busybox\s*A[\s\S]*MB/,
  );
  return tree;
}

/**
 * On the selected engine `engine` (which has `image`): a file a container wrote into a new volume
 * shows in the volume's browser, read through one helper container that is created and never
 * started; a file uploaded there lands in the volume; the helper goes once the browser closes,
 * and the volume can then be removed. `shot` is taken while it is open.
 */
export async function checkVolumeBrowser(
  page: Page,
  engine: EngineApi,
  image: string,
  volume: string,
  shot: () => Promise<void>,
): Promise<void> {
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await engine.request(method, path, body === undefined ? undefined : { body });
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.body.toString()}`);
    return res;
  };
  await ok('POST', '/volumes/create', { Name: volume });
  const writer = `${volume}-writer`;
  await ok('POST', `/containers/create?name=${writer}`, {
    Image: image,
    Cmd: ['sh', '-c', 'echo written > /data/note.txt'],
    HostConfig: { NetworkMode: 'none', Binds: [`${volume}:/data`] },
  });
  await ok('POST', `/containers/${writer}/start`);
  await ok('POST', `/containers/${writer}/wait`);
  const filters = encodeURIComponent(JSON.stringify({ label: [`dev.svc.desktop.volume-browser=${volume}`] }));
  const helpers = async () =>
    JSON.parse((await ok('GET', `/containers/json?all=1&filters=${filters}`)).body.toString()) as {
      State: string;
    }[];

  await page.evaluate(`location.hash = '#/volumes/${volume}'`);
  await page
    .getByRole('row')
    .filter({ has: page.getByText('note.txt', { exact: true }) })
    .waitFor({ timeout: 30_000 });
  assert.deepEqual(
    (await helpers()).map((h) => h.State.toLowerCase()),
    ['created'],
  );
  await page.getByLabel('choose files to upload…').setInputFiles({
    name: 'up.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from('uploaded\n'),
  });
  await page.getByText('Uploaded up.txt to /').waitFor();
  await ok('HEAD', `/containers/${writer}/archive?path=/data/up.txt`);
  await shot();
  await page.getByRole('button', { name: 'Close' }).click();
  await pollUntil('the helper removed', async () => ((await helpers()).length === 0 ? true : undefined), {
    timeoutMs: 20_000,
    intervalMs: 200,
  });
  // Nothing holds the volume any more: it goes, and the engine is left as it was.
  await ok('DELETE', `/containers/${writer}`);
  await ok('DELETE', `/volumes/${volume}`);
}

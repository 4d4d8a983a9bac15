// Podman as an added engine, in web mode: a private `podman system service` (daemon/testing/
// podman-peer.ts) is added in Settings by its podman.sock, and each screen is driven against it
// as a user would: the combined list, run, logs, terminal, stats, stop and remove, images (pull
// from the embedded registry, tag, remove), disk usage and events. Where Podman answers the
// Docker API differently the screens adapt, or say what the engine lacks.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { importBusybox } from '../daemon/testing/busybox-image';
import { destroyPodman, podmanMissing, startPodman, type PodmanPeer } from '../daemon/testing/podman-peer';
import { pollUntil } from '../daemon/testing/poll';
import { engineCaller, pullBusybox } from './engine-calls';
import { makeImage, saveArchive } from './image-archives';
import { pushTestImage } from './registry-push';
import {
  addEngine,
  checkCombinedView,
  checkVolumeBrowser,
  importRootfs,
  openBusyboxLayer,
  runInTerminal,
  tagImage,
} from './screen-steps';
import { missingPrerequisite, startSession, type Session } from './web-mode-fixture';

const until = <T>(what: string, probe: () => Promise<T | undefined>) =>
  pollUntil(what, probe, { timeoutMs: 20_000, intervalMs: 200 });

describe('Podman as an added engine', { skip: missingPrerequisite() ?? podmanMissing() }, () => {
  let session: Session;
  let page: Page;
  let podman: PodmanPeer;
  /** The embedded registry's host:port, which the Podman service may pull from over HTTP. */
  let registry: string;
  const image = 'localhost/busybox:latest';
  const row = (name: string) => page.getByTestId('container-row').filter({ hasText: name });
  const toast = (text: string) =>
    page.getByTestId('toasts').getByRole('status').filter({ hasText: text }).waitFor({ timeout: 60_000 });

  before(async () => {
    session = await startSession();
    page = session.page;
    registry = session.app.registryUrl.replace('http://', '');
    podman = await startPodman({ insecureRegistry: registry });
    await importBusybox(podman, image);
    await pushTestImage(session.app.registryUrl, 'e2e/pulled', '1.0', true);
    await pushTestImage(session.app.registryUrl, 'e2e/browsed', '1.0', true);
    // A container on the embedded engine too, for the combined view's engine filter.
    const embedded = await pullBusybox(session.app);
    await engineCaller(session.app)('POST', '/containers/create?name=on-embedded', {
      Image: embedded,
      Cmd: ['true'],
    });
    await page.goto(session.app.launchUrl + '#/settings');
    await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
  });

  after(async () => {
    await session?.stop();
    await destroyPodman(podman);
  });

  test('added by its podman.sock in Settings, it tests up as Podman 4.3', async () => {
    await addEngine(page, 'podman', `unix://${podman.socket}`, /^up, 4\.3\.\d+/);
    await session.shot('podman-settings');
    await page.getByLabel('Engine', { exact: true }).selectOption({ label: 'podman' });
  });

  test('runs a container from the dialog; its logs, a terminal and its stats', async () => {
    await page.keyboard.press('Alt+1');
    await page.getByRole('button', { name: 'Run container…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run a container' });
    await dialog.getByLabel('Image').fill(image);
    await dialog.getByLabel('Name').fill('pd-web');
    await dialog.getByLabel('Command').fill('sh -c "echo hello from podman; sleep 600"');
    // No bridge on the host for this test: the container has no network.
    await dialog.getByRole('checkbox', { name: 'none', exact: true }).check();
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    const outcome = page.getByRole('heading', { name: 'pd-web' }).or(dialog.getByRole('alert'));
    await outcome.first().waitFor({ timeout: 60_000 });
    if (await dialog.isVisible())
      assert.fail(`podman refused the run: ${await dialog.getByRole('alert').first().textContent()}`);
    await page.locator('.badge.state-running').waitFor({ timeout: 30_000 });
    await session.shot('podman-container-summary');

    await page.getByRole('tab', { name: 'Logs' }).click();
    await page.locator('.log-lines .line', { hasText: 'hello from podman' }).waitFor();
    await session.shot('podman-logs');

    await runInTerminal(page, 'echo hi', 'hi');
    // The terminal's size reached the exec, which Podman refuses until the exec runs.
    await page.keyboard.type('stty size');
    await page.keyboard.press('Enter');
    const size = await until('the terminal size', async () => {
      const rows = await page.getByTestId('terminal').locator('.xterm-rows > div').allInnerTexts();
      return rows.map((r) => /^(\d+) (\d+)$/.exec(r.trim())).find(Boolean) ?? undefined;
    });
    assert.ok(Number(size[1]) > 10 && Number(size[2]) > 80, `stty size: ${size[0]}`);
    await session.shot('podman-terminal');
    await page.keyboard.type('echo written-in-podman > /pd.txt');
    await page.keyboard.press('Enter');

    await page.getByRole('tab', { name: 'Stats' }).click();
    const memory = page.getByTestId('stats').locator('figcaption', { hasText: 'Memory' });
    await memory.getByText(/ of /).waitFor();
    // The stream goes on: a second sample draws a line over time.
    const line = page.locator('figure.chart').filter({ hasText: 'Memory' }).locator('polyline.series');
    await until('a second stats sample', async () =>
      ((await line.getAttribute('points')) ?? '').trim().split(/\s+/).length >= 2 ? true : undefined,
    );
    assert.match(await memory.innerText(), /Memory\s+[\d.]+ [kMG]?B of [\d.]+ [kMG]?B/);
    await session.shot('podman-stats');

    // The files tab: podman's archive API, listing and content.
    await page.getByRole('tab', { name: 'Files' }).click();
    const file = page.getByRole('row').filter({ has: page.getByText('pd.txt', { exact: true }) });
    await file.getByRole('button', { name: 'View' }).click();
    const viewer = page.getByRole('dialog', { name: '/pd.txt' });
    assert.equal((await viewer.getByTestId('file-content').innerText()).trim(), 'written-in-podman');
    await session.shot('podman-files');
    await viewer.getByRole('button', { name: 'Close' }).click();
  });

  test("the combined view lists Podman's containers with the engine column, and filters by engine", async () => {
    await checkCombinedView(page, 'podman', 'pd-web', 'on-embedded', () => session.shot('podman-combined'));
  });

  test('stops and removes the container with the bulk actions', async () => {
    await page.keyboard.press('Alt+1');
    // CPU and memory from the list's one-shot samples, as for any engine.
    await row('pd-web').getByTestId('container-usage').getByText(/B/).waitFor();
    await session.shot('podman-containers');
    await row('pd-web').getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Stop', exact: true }).first().click();
    await row('pd-web').getByText('exited', { exact: true }).waitFor({ timeout: 30_000 });
    await page.getByLabel('Bulk actions').getByRole('button', { name: 'Remove' }).click();
    await page
      .getByRole('dialog', { name: 'Remove pd-web?' })
      .getByRole('button', { name: 'Remove' })
      .click();
    await row('pd-web').waitFor({ state: 'detached', timeout: 30_000 });
    const list = await podman.request('GET', '/containers/json?all=1');
    assert.deepEqual(list.json(), []);
  });

  test("the layer explorer reads Podman's save archive", async () => {
    await page.keyboard.press('Alt+2');
    await openBusyboxLayer(page, image);
    await page.getByRole('tab', { name: 'History' }).click();
    await page.getByText('imported from tarball').first().waitFor();
    await session.shot('podman-image-history');
  });

  test('images: pulls from the embedded registry, tags, pushes back there and removes', async () => {
    await page.keyboard.press('Alt+2');
    await page.getByRole('cell', { name: image }).waitFor();
    await page.getByRole('button', { name: 'Pull…' }).first().click();
    const pull = page.getByRole('dialog', { name: 'Pull an image' });
    const pulled = `${registry}/e2e/pulled:1.0`;
    await pull.getByLabel('Image').fill(pulled);
    await pull.getByRole('button', { name: 'Pull', exact: true }).click();
    await page
      .getByTestId('toasts')
      .getByRole('status')
      .filter({ hasText: `Pulled ${pulled}` })
      .waitFor({
        timeout: 60_000,
      });
    await session.shot('podman-image-pull');
    await pull.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('cell', { name: pulled }).waitFor();

    // Tagged into the embedded registry's namespace, then pushed there from Podman.
    const tagged = `${registry}/e2e/from-podman:2.0`;
    const retagged = await tagImage(page, pulled, tagged);
    await retagged.getByRole('button', { name: 'Push…' }).click();
    const push = page.getByRole('dialog', { name: /^Push / });
    await push.getByRole('button', { name: 'Push', exact: true }).click();
    await page
      .getByTestId('toasts')
      .getByRole('status')
      .filter({ hasText: `Pushed ${tagged}` })
      .waitFor({ timeout: 60_000 });
    await session.shot('podman-image-push');
    await push.getByRole('button', { name: 'Close' }).click();
    const tags = await fetch(`${session.app.registryUrl}/v2/e2e/from-podman/tags/list`);
    assert.deepEqual(((await tags.json()) as { tags: string[] }).tags, ['2.0']);
    await session.shot('podman-images');
    await retagged.getByRole('button', { name: 'Remove' }).click();
    await page
      .getByRole('dialog', { name: new RegExp(`^Remove .*${tagged}\\?$`) })
      .getByRole('button', { name: 'Remove' })
      .click();
    await retagged.waitFor({ state: 'detached' });
    const names = podman.request('GET', '/images/json').then((r) => r.json<{ RepoTags: string[] }[]>());
    assert.ok(!(await names).some((i) => i.RepoTags.includes(tagged)));
  });

  test('images: loads a docker-save archive and imports a root filesystem, with their names', async () => {
    await page.keyboard.press('Alt+2');
    await page.getByRole('button', { name: 'Load…' }).click();
    const load = page.getByRole('dialog', { name: 'Load an image archive' });
    await load.getByLabel('Archive (from docker save)').setInputFiles({
      name: 'loaded.tar',
      mimeType: 'application/x-tar',
      buffer: saveArchive(makeImage(true), 'localhost/loaded:1.0'),
    });
    await load.getByRole('button', { name: 'Load', exact: true }).click();
    await load.getByText('Loaded image: localhost/loaded:1.0').waitFor({ timeout: 60_000 });
    await load.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('row', { name: /localhost\/loaded:1\.0/ }).waitFor();

    await page.getByRole('button', { name: 'Import…' }).click();
    const imp = page.getByRole('dialog', { name: 'Import a root filesystem' });
    // Podman ignores an import's `tag` parameter: the tag reaches it inside `repo`.
    await importRootfs(imp, { repo: 'localhost/imported', tag: '2.0', command: 'cat /hello.txt' });
    await page.getByRole('row', { name: /localhost\/imported:2\.0/ }).waitFor();
    await session.shot('podman-images-loaded');
    const imported = (await podman.request('GET', '/images/localhost/imported:2.0/json')).json<{
      Config: { Cmd: string[] };
    }>();
    assert.deepEqual(imported.Config.Cmd, ['cat', '/hello.txt']);
    for (const name of ['localhost/loaded:1.0', 'localhost/imported:2.0'])
      assert.equal((await podman.request('DELETE', `/images/${name}`)).status, 200);
  });

  test('the registry browser pulls into Podman and pushes from it', async () => {
    const reference = `${registry}/e2e/browsed:1.0`;
    await page.evaluate(`location.hash = '#/registry/e2e%2Fbrowsed/1.0'`);
    await page.getByTestId('tag-actions').getByRole('button', { name: 'Pull…' }).click();
    const pull = page.getByRole('dialog', { name: 'Pull an image' });
    assert.equal(await pull.getByLabel('Image').inputValue(), reference);
    await pull.getByLabel('Engine').selectOption({ label: 'podman' });
    await pull.getByRole('button', { name: 'Pull', exact: true }).click();
    await toast(`Pulled ${reference}`);
    await pull.getByRole('button', { name: 'Close' }).click();
    const names = (await podman.request('GET', '/images/json')).json<{ RepoTags: string[] }[]>();
    assert.ok(
      names.some((i) => i.RepoTags.includes(reference)),
      JSON.stringify(names),
    );

    await page.getByRole('button', { name: 'Push from an engine…' }).click();
    const push = page.getByRole('dialog', { name: /^Push to / });
    await push.getByLabel('Engine').selectOption({ label: 'podman' });
    await push.getByLabel('Image').selectOption(reference);
    await push.getByLabel('As repository:tag').fill('e2e/from-browser:2.0');
    await push.getByRole('button', { name: 'Push', exact: true }).click();
    await toast(`Pushed ${registry}/e2e/from-browser:2.0`);
    await session.shot('podman-registry-push');
    await push.getByRole('button', { name: 'Close' }).click();
    const tags = await fetch(`${session.app.registryUrl}/v2/e2e/from-browser/tags/list`);
    assert.deepEqual(((await tags.json()) as { tags: string[] }).tags, ['2.0']);
    for (const name of [reference, `${registry}/e2e/from-browser:2.0`])
      assert.equal((await podman.request('DELETE', `/images/${name}`)).status, 200);
  });

  test("volumes: creates one and removes it; the networks screen lists Podman's networks", async () => {
    await page.keyboard.press('Alt+3');
    const volume = page.locator('tr[data-volume="pd-vol"]');
    // The toolbar's button: with no volume yet, the empty state offers one too.
    await page.locator('header').getByRole('button', { name: 'New volume…' }).click();
    const create = page.getByRole('dialog', { name: 'Create a volume' });
    await create.getByLabel('Name').fill('pd-vol');
    await create.getByRole('button', { name: 'Create' }).click();
    await volume.getByText('unused').waitFor();
    await session.shot('podman-volumes');
    await volume.getByRole('button', { name: 'Remove' }).click();
    await page
      .getByRole('dialog', { name: 'Remove volume pd-vol?' })
      .getByRole('button', { name: 'Remove' })
      .click();
    await volume.waitFor({ state: 'detached' });
    assert.deepEqual((await podman.request('GET', '/volumes')).json<{ Volumes: unknown[] }>().Volumes, []);
    // Podman's default network, listed by the name the Docker API gives it; nothing is created.
    await page.keyboard.press('Alt+4');
    await page.locator('tr[data-network]').filter({ hasText: '10.88.0.0/16' }).first().waitFor();
    await session.shot('podman-networks');
  });

  test('a volume is browsed through a helper container Podman never starts, gone once closed', async () => {
    await checkVolumeBrowser(page, podman, image, 'pd-data', () => session.shot('podman-volume-browser'));
  });

  test("all of a log whose lines share a second: Podman's timestamps have no fraction", async () => {
    const made = await podman.request('POST', '/containers/create?name=pd-lines', {
      body: { Image: image, Cmd: ['seq', '1', '3000'], HostConfig: { NetworkMode: 'none' } },
    });
    assert.equal(made.status, 201, made.text());
    const { Id } = made.json<{ Id: string }>();
    assert.equal((await podman.request('POST', `/containers/${Id}/start`)).status, 204);
    assert.equal((await podman.request('POST', `/containers/${Id}/wait`)).status, 200);
    try {
      await page.evaluate(`location.hash = '#/containers/${Id}/logs'`);
      const status = page.getByTestId('log-status');
      await status.getByText(/1,000 lines loaded/).waitFor();
      // The rest comes as a page back from the first line shown: up to its second, all of it.
      await page.getByLabel('Lines to load').selectOption('all');
      await until('all 3,000 lines', async () => {
        const text = await status.innerText();
        return /3,000 lines loaded/.test(text) && !/loading/.test(text) ? true : undefined;
      }).catch(async (err: Error) => assert.fail(`${err.message}: ${await status.innerText()}`));
      await session.shot('podman-logs-all');
    } finally {
      assert.equal((await podman.request('DELETE', `/containers/${Id}`)).status, 204);
    }
  });

  test("disk usage reads Podman's answer, says what Podman lacks, and cleans up everything", async () => {
    const made = await podman.request('POST', '/containers/create?name=pd-stopped', {
      body: { Image: image, Cmd: ['true'], HostConfig: { NetworkMode: 'none' } },
    });
    assert.equal(made.status, 201, made.text());
    await page.evaluate(`location.hash = '#/disk'`);
    const kind = (k: string) => page.locator(`tr[data-kind="${k}"]`);
    await kind('images').getByRole('cell').nth(1).filter({ hasText: '2' }).waitFor();
    await kind('containers').getByRole('cell').nth(1).filter({ hasText: '1' }).waitFor();
    await page.getByTestId('disk-usage-lacks').filter({ hasText: 'podman (Podman 4.3' }).first().waitFor();
    assert.match(
      (await page.getByTestId('disk-usage-lacks').allInnerTexts()).join('\n'),
      /has no build cache API \(POST \/build\/prune\)/,
    );
    assert.ok(await kind('build cache').getByRole('button', { name: 'Clear the build cache' }).isDisabled());
    await session.shot('podman-disk-usage');
    await page.getByRole('button', { name: 'Clean up everything' }).click();
    const dialog = page.getByRole('dialog', { name: 'Clean up everything?' });
    const listed = await dialog.getByTestId('will-remove').innerText();
    assert.match(listed, /1 stopped container: pd-stopped/);
    // Podman's df names an image by its tag alone ("1.0"); the screen names it in full.
    assert.match(listed, /2 unused images: /);
    for (const name of [`${registry}/e2e/pulled:1.0`, image]) assert.ok(listed.includes(name), listed);
    assert.doesNotMatch(listed, /build cache/);
    await dialog.getByRole('button', { name: 'Clean up' }).click();
    await page
      .getByTestId('toasts')
      .getByRole('status')
      .filter({ hasText: 'Removed containers, images' })
      .waitFor();
    await kind('images').getByRole('cell').nth(1).filter({ hasText: '0' }).waitFor();
    assert.deepEqual((await podman.request('GET', '/images/json')).json(), []);
    assert.deepEqual((await podman.request('GET', '/containers/json?all=1')).json(), []);
  });

  test('the events timeline shows what Podman reported', async () => {
    await page.keyboard.press('Alt+6');
    const events = page.getByRole('list', { name: 'Events' });
    for (const action of ['create', 'start', 'remove'])
      await events.getByText(action, { exact: true }).first().waitFor();
    await session.shot('podman-events');
  });
});

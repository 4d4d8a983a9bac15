// A volume's files in web mode against the real svcd: the browser reads and writes them through a
// helper container that mounts the volume and never starts, hidden from the user's lists, gone
// when the browser closes, and never in the way of removing the volume.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { engineCaller, pullBusybox, type EngineCall } from './engine-calls';
import {
  missingPrerequisite,
  runFromPalette,
  startSession,
  type Session,
  type WebApp,
} from './web-mode-fixture';

const VOLUME = 'e2e-files';
const LABEL = 'dev.svc.desktop.volume-browser';
/** What the writer puts in sub/numbers.txt. */
const numbers = Array.from({ length: 2000 }, (_, i) => `${i + 1}\n`).join('');

interface Helper {
  Id: string;
  State: string;
  Labels: Record<string, string>;
  HostConfig: { NetworkMode: string };
  Mounts: { Type: string; Name?: string; Destination: string }[];
}

describe('the volume file browser in web mode', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let app: WebApp;
  let page: Page;
  let engine: EngineCall;
  let image: string;
  const helpers = async () =>
    (await engine(
      'GET',
      `/containers/json?all=1&filters=${encodeURIComponent(JSON.stringify({ label: [LABEL] }))}`,
    )) as Helper[];
  /** Runs `script` in busybox with the volume at /data, to its end; its output (a tty: no framing). */
  const inVolume = async (name: string, script: string) => {
    const { Id } = (await engine('POST', `/containers/create?name=${name}`, {
      Image: image,
      Cmd: ['sh', '-c', script],
      Tty: true,
      HostConfig: { NetworkMode: 'none', Binds: [`${VOLUME}:/data`] },
    })) as { Id: string };
    await engine('POST', `/containers/${Id}/start`);
    await engine('POST', `/containers/${Id}/wait`);
    const res = await fetch(`${app.base}/engine/containers/${Id}/logs?stdout=1&stderr=1`, {
      headers: { authorization: `Bearer ${app.token}` },
    });
    return res.text();
  };
  /** A helper as a crashed session leaves it. */
  const leaveStaleHelper = async () =>
    (await engine('POST', '/containers/create', {
      Image: image,
      Labels: { [LABEL]: VOLUME },
      HostConfig: { NetworkMode: 'none', Binds: [`${VOLUME}:/volume`] },
    })) as { Id: string };
  const row = (name: string) => page.getByRole('row').filter({ has: page.getByText(name, { exact: true }) });
  const until = async (what: string, check: () => Promise<boolean>) => {
    const deadline = Date.now() + 10_000;
    while (!(await check())) {
      assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  before(async () => {
    session = await startSession();
    ({ app, page } = session);
    engine = engineCaller(app);
    await engine('POST', '/volumes/create', { Name: VOLUME });
  });

  after(async () => {
    await session?.stop();
  });

  test('with no image on the engine, says so and leads to pull, load or import', async () => {
    await page.goto(`${app.launchUrl}#/volumes/${VOLUME}`);
    const empty = page.getByTestId('volume-browser-no-image');
    await empty.getByText('Browsing a volume needs any local image; pull, load or import one').waitFor();
    assert.deepEqual(await helpers(), [], 'nothing was created, nothing pulled');
    assert.deepEqual((await engine('GET', '/images/json')) as unknown[], []);
    await empty.getByRole('button', { name: 'Load…' }).click();
    await page.getByLabel('Archive (from docker save)').waitFor();
    assert.match(page.url(), /#\/images$/);
    await page.keyboard.press('Escape');
  });

  test('opens from the volumes list by keyboard, lists the files and reaps a stale helper', async () => {
    image = await pullBusybox(app);
    await inVolume(
      'writer',
      `echo hello > /data/hello.txt && mkdir /data/sub && for i in $(seq 1 2000); do echo $i; done > /data/sub/numbers.txt`,
    );
    const stale = await leaveStaleHelper();

    await page.goto(`${app.launchUrl}#/volumes`);
    const link = page.locator(`tr[data-volume="${VOLUME}"]`).getByRole('link', { name: VOLUME });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: VOLUME }).waitFor();
    await row('hello.txt').waitFor();
    await page.getByRole('button', { name: 'sub/', exact: true }).waitFor();
    // The volume only: nothing of the helper's root filesystem.
    assert.equal(await page.getByRole('button', { name: 'bin/', exact: true }).count(), 0);

    const [helper, ...more] = await helpers();
    assert.deepEqual(more, [], 'one helper: the stale one was removed');
    assert.notEqual(helper.Id, stale.Id);
    assert.equal(helper.State, 'created', 'never started');
    assert.equal(helper.Labels[LABEL], VOLUME);
    assert.equal(helper.HostConfig.NetworkMode, 'none');
    assert.deepEqual(
      helper.Mounts.map((m) => [m.Type, m.Name, m.Destination]),
      [['volume', VOLUME, '/volume']],
    );

    // The user's lists do not show it, in another window while this one browses.
    const other = await session.newPage();
    try {
      await other.goto(`${app.launchUrl}#/containers`);
      await other.getByTestId('container-row').filter({ hasText: 'writer' }).waitFor();
      const rows = await other.getByTestId('container-row').allInnerTexts();
      assert.equal(rows.length, 1, `only the writer: ${rows.join(' | ')}`);
      await other.evaluate(`location.hash = '#/disk'`);
      const containers = other.locator('tr[data-kind=containers]');
      await containers.waitFor();
      assert.equal((await containers.getByRole('cell').allInnerTexts())[1], '1', 'one container: the writer');
    } finally {
      await other.close();
    }
    await session.shot('volume-browser');
  });

  test('goes into a folder and downloads a file as its bytes', async () => {
    await page.getByRole('button', { name: 'sub/', exact: true }).click();
    await page.getByRole('navigation', { name: 'Path' }).getByRole('button', { name: 'sub/' }).waitFor();
    const numbersRow = row('numbers.txt');
    await numbersRow.waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      numbersRow.getByRole('button', { name: 'Download', exact: true }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'numbers.txt');
    assert.deepEqual(await readFile(await download.path()), Buffer.from(numbers));
  });

  test('uploads a file through the picker into the volume', async () => {
    await page.getByLabel('choose files to upload…').setInputFiles({
      name: 'up.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('uploaded through the browser\n'),
    });
    await page.getByText('Uploaded up.txt to /sub').waitFor();
    await row('up.txt').waitFor();
    assert.equal(
      (await inVolume('reader', 'cat /data/sub/up.txt')).replace(/\r\n/g, '\n'),
      'uploaded through the browser\n',
    );
  });

  test('closing the browser removes its helper, and the volume can be removed', async () => {
    await page.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('heading', { name: 'Volumes', exact: true }).waitFor();
    await until('the helper removed', async () => (await helpers()).length === 0);

    // From the palette, then away to another screen: removed as well.
    await runFromPalette(page, `Browse files of volume ${VOLUME}`);
    await row('hello.txt').waitFor();
    assert.equal((await helpers()).length, 1);
    await page.evaluate(`location.hash = '#/images'`);
    await until('the helper removed', async () => (await helpers()).length === 0);

    for (const name of ['writer', 'reader']) await engine('DELETE', `/containers/${name}`);
    // One a crash left holds the volume in use: removing the volume removes it first.
    await leaveStaleHelper();
    await page.goto(`${app.launchUrl}#/volumes`);
    const volumeRow = page.locator(`tr[data-volume="${VOLUME}"]`);
    await volumeRow.getByRole('button', { name: `Remove volume ${VOLUME}` }).click();
    await page
      .getByRole('dialog', { name: `Remove volume ${VOLUME}?` })
      .getByRole('button', { name: 'Remove' })
      .click();
    await volumeRow.waitFor({ state: 'detached' });
    const left = ((await engine('GET', '/volumes')) as { Volumes: { Name: string }[] | null }).Volumes ?? [];
    assert.deepEqual(
      left.map((v) => v.Name),
      [],
    );
  });
});

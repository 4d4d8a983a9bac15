// The Build screen in web mode against the real svcd: a folder uploaded from the page (its
// .dockerignore applied, its size shown before sending), built with a tag and a build arg, its
// steps folded with their cache hits on the second run, another instructions file built to a
// target stage and again with no cache, a long build cancelled, the result linked to its image.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { pollUntil } from '../daemon/testing/poll';
import { engineCaller, pullBusybox, type EngineCall } from './engine-calls';
import { shootLooks } from './looks';
import { missingPrerequisite, startSession, type Session, type WebApp } from './web-mode-fixture';

/** A folder on disk to upload: `files` maps paths below it to their text. */
function makeFolder(parent: string, name: string, files: Record<string, string>): string {
  const dir = join(parent, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('the Build screen in web mode', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let app: WebApp;
  let page: Page;
  let engine: EngineCall;
  let image: string;
  let folders: string;

  before(async () => {
    session = await startSession();
    ({ app, page } = session);
    engine = engineCaller(app);
    image = await pullBusybox(app);
    folders = mkdtempSync(join(tmpdir(), 'svc-build-e2e-'));
    await page.goto(app.launchUrl + '#/build');
    await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
  });

  after(async () => {
    await session?.stop();
    if (folders) rmSync(folders, { recursive: true, force: true });
  });

  /** A file of the image, read through a container made of it (the archive, as a tar's text). */
  const fileIn = async (ref: string, path: string) => {
    const { Id } = (await engine('POST', '/containers/create', { Image: ref, Cmd: ['true'] })) as {
      Id: string;
    };
    const tar = await fetch(`${app.base}/engine/containers/${Id}/archive?path=${path}`, {
      headers: { authorization: `Bearer ${app.token}` },
    });
    const text = Buffer.from(await tar.arrayBuffer()).toString('latin1');
    await engine('DELETE', `/containers/${Id}`);
    return text;
  };
  const outcome = () => page.getByTestId('build-outcome');
  const steps = () => page.getByTestId('build-step');

  test('uploads a folder without what .dockerignore names, showing its size before sending', async () => {
    const dir = makeFolder(folders, 'hello-app', {
      Dockerfile: `FROM ${image}\nARG GREETING\nCOPY greeting.txt /greeting.txt\nRUN echo "$GREETING" >> /greeting.txt\n`,
      'greeting.txt': 'hello from the folder\n',
      '.dockerignore': 'secrets\n*.log\n',
      'secrets/key.pem': 'x'.repeat(5000),
      'debug.log': 'y'.repeat(3000),
    });
    await page.getByLabel('Build context folder').setInputFiles(dir);
    const summary = page.getByTestId('build-context-summary');
    // Dockerfile 107 B + greeting 22 B + .dockerignore 14 B; the 8 kB left out are not counted.
    await summary.filter({ hasText: 'hello-app: 3 files' }).waitFor();
    assert.match(await summary.innerText(), /2 left out by \.dockerignore/);
    assert.doesNotMatch(await summary.innerText(), /kB/);
    assert.equal(await page.getByLabel('Instructions file').inputValue(), 'Dockerfile');
  });

  test('builds it with a tag and a build arg: each step folded, the image linked', async () => {
    await page.getByLabel('Tags').fill('e2e/hello:1');
    await page.getByLabel('Build args (NAME=value, one a line)').fill('GREETING=hi from an arg');
    await page.getByRole('button', { name: 'Build', exact: true }).click();
    await outcome().filter({ hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    const titles = await steps().locator('summary .ellipsis').allInnerTexts();
    assert.deepEqual(
      titles.filter((t) => t.startsWith('Step')).map((t) => t.replace(/ : .*/, '')),
      ['Step 1/4', 'Step 2/4', 'Step 3/4', 'Step 4/4'],
    );
    assert.equal(
      await steps().locator('.build-cached').count(),
      0,
      'a first build takes nothing from the cache',
    );
    await session.shot('build-done');
    // The image it made, with the folder's file and the arg's line.
    const { Id } = (await engine('GET', '/images/e2e/hello:1/json')) as { Id: string };
    assert.match(await fileIn('e2e/hello:1', '/greeting.txt'), /hello from the folder\nhi from an arg\n/);
    const link = page.getByTestId('built-image');
    assert.match(await link.innerText(), new RegExp(Id.replace('sha256:', '').slice(0, 12)));
    await link.click();
    await page
      .getByRole('heading', { name: /e2e\/hello:1/ })
      .first()
      .waitFor();
  });

  test('a rebuild takes every step from the cache, and both builds are listed', async () => {
    await page.getByRole('link', { name: 'Build', exact: true }).click();
    await page.getByRole('button', { name: 'Rebuild' }).first().click();
    const builds = page.getByRole('table', { name: 'Builds' }).locator('tbody tr');
    await builds.nth(1).waitFor();
    await outcome().filter({ hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    // FROM has no cache line; ARG, COPY and RUN come from the cache.
    assert.equal(await steps().locator('.build-cached').count(), 3);
    await page.getByText('3 from cache').waitFor();
    assert.deepEqual(await shootLooks(page, 'build'), [], 'the Build screen fits each window');
    assert.deepEqual(await builds.locator('td:first-child').allInnerTexts(), ['succeeded', 'succeeded']);
  });

  test('another instructions file, built to a target stage; a rebuild with No cache takes nothing from the cache', async () => {
    const dir = makeFolder(folders, 'stages-app', {
      Dockerfile: `FROM ${image}\nRUN echo default > /stage\n`,
      'stages.Dockerfile': `FROM ${image} AS base\nRUN echo base > /stage\nFROM base AS extra\nRUN echo extra >> /stage\n`,
    });
    await page.getByLabel('Build context folder').setInputFiles(dir);
    await page.getByTestId('build-context-summary').filter({ hasText: 'stages-app: 2 files' }).waitFor();
    await page.getByLabel('Instructions file').selectOption('stages.Dockerfile');
    await page.getByLabel('Tags').fill('e2e/stages:1');
    await page.getByLabel('Build args (NAME=value, one a line)').fill('');
    await page.getByLabel('Target stage').fill('base');
    const build = async () => {
      await page.getByRole('button', { name: 'Build', exact: true }).click();
      await outcome()
        .filter({ hasText: /succeeded|failed/ })
        .waitFor({ timeout: 60_000 });
      assert.match(await outcome().innerText(), /succeeded/);
    };
    await build();
    // The base stage of stages.Dockerfile: neither the Dockerfile's line nor the later stage's.
    const made = await fileIn('e2e/stages:1', '/stage');
    assert.match(made, /base\n/);
    assert.doesNotMatch(made, /default|extra/);
    await page.getByLabel('No cache').check();
    await build();
    assert.equal(await steps().locator('.build-cached').count(), 0, 'no step from the cache');
    await page.getByLabel('No cache').uncheck();
    await page.getByLabel('Target stage').fill('');
  });

  test('cancels a build that is running, and lists it as cancelled', async () => {
    const dir = makeFolder(folders, 'slow-app', {
      Dockerfile: `FROM ${image}\nRUN echo started; sleep 600\n`,
    });
    await page.getByLabel('Build context folder').setInputFiles(dir);
    await page.getByTestId('build-context-summary').filter({ hasText: 'slow-app: 1 file' }).waitFor();
    await page.getByLabel('Tags').fill('e2e/slow:1');
    await page.getByRole('button', { name: 'Build', exact: true }).click();
    await steps().filter({ hasText: 'started' }).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Cancel build' }).click();
    await outcome().filter({ hasText: 'cancelled' }).waitFor();
    const first = page.getByRole('table', { name: 'Builds' }).locator('tbody tr').first();
    assert.match(await first.innerText(), /cancelled\s+e2e\/slow:1/);
    // The engine stopped it too: no image, and no build container left running.
    const res = await fetch(`${app.base}/engine/images/e2e/slow:1/json`, {
      headers: { authorization: `Bearer ${app.token}` },
    });
    assert.equal(res.status, 404);
    // The engine stops the RUN's container as it would any (a grace period, then a kill).
    await pollUntil(
      'the build container to go',
      async () =>
        ((await engine('GET', '/containers/json?all=1')) as unknown[]).length === 0 ? true : undefined,
      { timeoutMs: 60_000 },
    );
  });
});

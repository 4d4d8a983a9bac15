// A running container's detail tabs in web mode against the real svcd: run it from the dialog,
// read its logs as they grow, type in its terminal (exec over the gateway's WebSocket bridge),
// watch its stats move, download a file through the archive API, then stop and remove it.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { pushTestImage } from './registry-push';
import { missingPrerequisite, startSession, type Session, type WebApp } from './web-mode-fixture';
import { pollUntil } from '../daemon/testing/poll';

const NAME = 'e2e-detail';
const COMMAND = `sh -c 'i=0; while true; do echo line $i; i=$((i+1)); sleep 0.2; done'`;

/** The highest "line N" the logs tab currently renders, or -1. */
async function lastLogLine(page: Page): Promise<number> {
  const texts = await page.locator('.log-lines .line').allTextContents();
  return Math.max(-1, ...texts.map((t) => Number(/line (\d+)\s*$/.exec(t)?.[1] ?? -1)));
}

const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000) =>
  pollUntil(what, probe, { timeoutMs, intervalMs: 200 });

describe('a container in detail in web mode', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let app: WebApp;
  let page: Page;
  let image: string;
  const tab = (name: string) => page.getByRole('tab', { name }).click();
  const engineGet = async (path: string) => {
    const res = await fetch(`${app.base}/engine${path}`, {
      headers: { authorization: `Bearer ${app.token}` },
    });
    assert.equal(res.status, 200, `GET ${path}`);
    return res.json() as Promise<Record<string, unknown>>;
  };

  before(async () => {
    session = await startSession();
    ({ app, page } = session);
    await pushTestImage(app.registryUrl, 'e2e/busybox', '1.0', true);
    image = `${app.registryUrl.replace('http://', '')}/e2e/busybox:1.0`;
    const pulled = await fetch(`${app.base}/engine/images/create?fromImage=${encodeURIComponent(image)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.token}` },
    });
    await pulled.text();
    assert.equal(pulled.status, 200);
    await page.goto(app.launchUrl + '#/containers');
    await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
  });

  after(async () => {
    await session?.stop();
  });

  test('runs a looping container from the dialog and shows it running', async () => {
    await page.getByRole('button', { name: 'Run container…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run a container' });
    await dialog.getByLabel('Image').fill(image);
    await dialog.getByLabel('Name').fill(NAME);
    await dialog.getByLabel('Command').fill(COMMAND);
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('heading', { name: NAME }).or(dialog.getByRole('alert')).first().waitFor();
    assert.equal(await dialog.isVisible(), false, 'the engine refused the run');
    await page.locator('.badge.state-running').waitFor({ timeout: 30_000 });
  });

  test('the logs tab shows the lines and the ones that follow', async () => {
    await tab('Logs');
    const first = await until('a log line', async () =>
      (await lastLogLine(page)) >= 0 ? lastLogLine(page) : undefined,
    );
    const later = await until('newer log lines', async () => {
      const n = await lastLogLine(page);
      return n >= first + 3 ? n : undefined;
    });
    assert.ok(later > first);
    assert.match(await page.locator('.logs .toolbar .muted').first().innerText(), /\d+ lines loaded/);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download full log' }).click(),
    ]);
    const log = (await readFile(await download.path())).toString('utf8');
    assert.match(log, /line 0\r?\n/);
    assert.match(log, new RegExp(`line ${later}\\r?\\n`));
    await session.shot('container-logs');
  });

  test('typing `echo hi` in the terminal shows hi', async () => {
    await tab('Terminal');
    await page.locator('.badge.term-connected').waitFor({ timeout: 20_000 });
    const term = page.getByTestId('terminal');
    await term.click();
    await page.keyboard.type('echo hi');
    await page.keyboard.press('Enter');
    const rows = term.locator('.xterm-rows > div');
    await until('a row reading hi', async () =>
      (await rows.allInnerTexts()).some((t) => t.trim() === 'hi') ? true : undefined,
    );
    await session.shot('container-terminal');
    // A file for the files tab to download, at the top level where the tab opens.
    await page.keyboard.type('hostname > /hostname.txt');
    await page.keyboard.press('Enter');
    // A busy loop in the background gives the stats tab something to show.
    await page.keyboard.type('while :; do :; done &');
    await page.keyboard.press('Enter');
  });

  test('the stats tab shows figures that update', async () => {
    await tab('Stats');
    const cpu = page.locator('figure.chart').filter({ hasText: 'CPU' }).locator('figcaption span');
    const readings = new Set<string>();
    const busy = await until(
      'CPU figures that change and show the busy loop',
      async () => {
        const text = await cpu.innerText();
        if (text !== '—') readings.add(text);
        const percent = parseFloat(text);
        return readings.size >= 3 && percent > 20 ? percent : undefined;
      },
      30_000,
    );
    assert.ok(busy > 20, `CPU ${busy} %`);
    const memory = await page
      .locator('figure.chart')
      .filter({ hasText: 'Memory' })
      .locator('figcaption span')
      .innerText();
    assert.match(memory, /\d.* of /);
    await session.shot('container-stats');
  });

  test('the files tab downloads a file the terminal wrote, as the file itself', async () => {
    const inspect = await engineGet(`/containers/${NAME}/json`);
    const hostname = (inspect.Config as { Hostname: string }).Hostname;
    await tab('Files');
    const row = page.getByRole('row').filter({ has: page.getByText('hostname.txt', { exact: true }) });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('button', { name: 'Download', exact: true }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'hostname.txt');
    const content = await readFile(await download.path());
    assert.equal(content.toString('utf8').trim(), hostname);
    await session.shot('container-files');
  });

  test('stops and removes it from the detail screen', async () => {
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.locator('.badge.state-exited').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Remove', exact: true }).click();
    await page
      .getByRole('dialog', { name: /^Remove .+\?$/ })
      .getByRole('button', { name: 'Remove' })
      .click();
    await page.getByTestId('containers-empty').waitFor({ timeout: 30_000 });
    await session.shot('container-removed');
    const res = await fetch(`${app.base}/engine/containers/json?all=1`, {
      headers: { authorization: `Bearer ${app.token}` },
    });
    assert.deepEqual(await res.json(), []);
  });
});

// What a first-time user reads in a running container, in web mode against the real svcd: the
// Image column and the events timeline after its tag is removed, bind-mounted files with their real size and mode, a
// file viewed and deleted, stderr told apart in the logs, CPU explained, readable times, and a
// sidebar that collapses and stays so.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { makeImage, saveArchive } from './image-archives';
import { missingPrerequisite, startSession, type Session, type WebApp } from './web-mode-fixture';

describe('first use in detail in web mode', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let app: WebApp;
  let page: Page;
  let id: string;
  let imageId: string;
  const go = (hash: string) => page.evaluate(`location.hash = '#/${hash}'`);
  const engine = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${app.base}/engine${path}`, {
      method,
      headers: { authorization: `Bearer ${app.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
    return text ? (JSON.parse(text.split('\n')[0]) as Record<string, unknown>) : {};
  };

  before(async () => {
    session = await startSession();
    ({ app, page } = session);
    const loaded = await fetch(`${app.base}/engine/images/load`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.token}`, 'content-type': 'application/x-tar' },
      body: saveArchive(makeImage(true), 'details/busybox:1.0'),
    });
    assert.equal(loaded.status, 200, await loaded.text());
    imageId = (await engine('GET', '/images/details/busybox:1.0/json')).Id as string;
    await engine('POST', '/images/details/busybox:1.0/tag?repo=details/kept&tag=1.0');
    id = (
      await engine('POST', '/containers/create?name=details', {
        Image: 'details/busybox:1.0',
        Cmd: ['sh', '-c', 'echo to-stdout; echo to-stderr >&2; exec sleep 300'],
      })
    ).Id as string;
    await engine('POST', `/containers/${id}/start`);
    await page.goto(app.launchUrl + '#/containers');
    await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
  });

  after(async () => {
    await session?.stop();
  });

  test('the Image column shows the image ID once the tag it was run by is removed', async () => {
    const row = page.getByTestId('container-row').filter({ hasText: 'details' });
    await row.getByText('details/busybox:1.0', { exact: true }).waitFor();
    await engine('DELETE', '/images/details/busybox:1.0');
    const short = imageId.replace('sha256:', '').slice(0, 12);
    await row.getByText(short, { exact: true }).waitFor();
    assert.equal(await row.getByText('details/busybox:1.0').count(), 0);
    await session.shot('details-image-untagged');

    // dockerd names the untag by the image ID; the timeline says which name went.
    await go('events');
    await page.getByLabel('Event type').selectOption('image');
    const untag = page.locator('.event-row').filter({ hasText: 'untag' });
    await untag.getByText('details/busybox:1.0', { exact: true }).waitFor();
    assert.equal(await untag.getByText(/sha256:/).count(), 0);
    await session.shot('details-events-untag');
    await page.getByLabel('Event type').selectOption('');
    await go('containers');
  });

  test('files: bind-mounted files as the container sees them, view one, delete one after confirming', async () => {
    await go(`containers/${id}/files`);
    await page.getByRole('button', { name: 'etc/', exact: true }).click();
    const hostname = page.getByRole('row', { name: /^hostname\b/ });
    // The container's ID and a newline, as the container reads it (the image's file is empty).
    await hostname.getByRole('cell', { name: '13 B', exact: true }).waitFor();
    assert.equal(await hostname.getByRole('cell', { name: '644', exact: true }).count(), 1);
    await hostname.getByRole('button', { name: 'View' }).click();
    const view = page.getByRole('region', { name: 'Contents of /etc/hostname' });
    assert.equal((await view.locator('pre').textContent())?.trim(), id.slice(0, 12));
    await session.shot('details-file-view');
    await view.getByRole('button', { name: 'Close' }).click();

    await page
      .getByRole('navigation', { name: 'Path' })
      .getByRole('button', { name: '/', exact: true })
      .click();
    const hello = page.getByRole('row', { name: /^hello\.txt\b/ });
    await hello.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete /hello.txt?' });
    await session.shot('details-file-delete-confirm');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await hello.waitFor({ state: 'detached' });
    const gone = await fetch(`${app.base}/engine/containers/${id}/archive?path=/hello.txt`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${app.token}` },
    });
    assert.equal(gone.status, 404);
  });

  test('logs mark stderr, stats explain CPU per core, the summary reads times as dates', async () => {
    await go(`containers/${id}/logs`);
    const err = page.locator('.log-lines .line').filter({ hasText: 'to-stderr' });
    const out = page.locator('.log-lines .line').filter({ hasText: 'to-stdout' });
    await err.waitFor();
    assert.equal(await err.getByTitle('written to stderr').isVisible(), true);
    assert.equal(await out.getByTitle('written to stderr').count(), 0);
    await page.getByText('2 lines loaded').waitFor();
    await session.shot('details-logs-stderr');

    const cpus = (await engine('GET', '/info')).NCPU as number;
    await go(`containers/${id}/stats`);
    await page
      .getByTestId('stats')
      .getByText(`100 % is one core busy, so ${cpus} cores go up to ${cpus * 100} %`, { exact: false })
      .waitFor({ timeout: 30_000 });
    await session.shot('details-stats-cpu');

    await go(`containers/${id}/summary`);
    const summary = page.locator('.summary dl');
    await summary.getByText('Finished').waitFor();
    const text = await summary.innerText();
    assert.doesNotMatch(text, /0001-01-01|\d{4}-\d\d-\d\dT\d\d:/, text);
    await session.shot('details-summary-times');
  });

  test('the sidebar collapses, and stays collapsed after a reload', async () => {
    const sidebar = page.getByRole('navigation', { name: 'Sections' });
    const width = async () => (await sidebar.boundingBox())!.width;
    const wide = await width();
    await page.getByRole('button', { name: 'Collapse the sidebar' }).click();
    assert.ok((await width()) < wide / 2, `${await width()} of ${wide}`);
    await page.reload();
    await page.getByRole('button', { name: 'Expand the sidebar' }).waitFor();
    assert.ok((await width()) < wide / 2);
    await sidebar.getByRole('link', { name: 'Images' }).click();
    await page.getByRole('heading', { name: 'Images', level: 1 }).waitFor();
    await page.setViewportSize({ width: 1024, height: 700 });
    await session.shot('details-sidebar-collapsed-1024');
    await page.getByRole('button', { name: 'Expand the sidebar' }).click();
    assert.equal(await width(), wide);
  });
});

// Requests that get no answer: Chromium fails those in flight whenever the host's networks change
// (ERR_NETWORK_CHANGED), which containers starting and stopping do all the time. Here the browser
// itself fails chosen requests (Playwright's route abort, the same TypeError in the page): a
// screen whose files fail once still opens, the events stream follows again, and a screen that
// cannot load at all says so in its place with a way out, the rest of the window still working.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page, Route } from 'playwright-core';
import { engineCaller, pullBusybox, type EngineCall } from './engine-calls';
import { missingPrerequisite, startSession, type Session } from './web-mode-fixture';

/** Fails the first `times` requests matching `url` on the way, as a network change does; counts them. */
async function failFirst(page: Page, url: string | RegExp, times: number): Promise<{ failed: number }> {
  const seen = { failed: 0 };
  await page.route(url, (route: Route) => {
    if (seen.failed >= times) return route.fallback();
    seen.failed++;
    return route.abort('internetdisconnected');
  });
  return seen;
}

describe('requests that fail on the way, in web mode', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let page: Page;
  let engine: EngineCall;
  let image: string;
  let events: { failed: number };

  before(async () => {
    session = await startSession();
    page = session.page;
    engine = engineCaller(session.app);
    image = await pullBusybox(session.app);
    // The events stream's first opening fails: the app must open it again by itself.
    events = await failFirst(page, /\/engine\/events\?/, 1);
    await page.goto(session.app.launchUrl);
    await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
  });

  after(async () => {
    await session?.stop();
  });

  test("a screen whose script and stylesheet fail once opens, styled, and the engine's events reach it", async () => {
    const script = await failFirst(page, /\/assets\/event-timeline-[\w-]+\.js$/, 1);
    const sheet = await failFirst(page, /\/assets\/event-timeline-[\w-]+\.css$/, 1);
    await page.keyboard.press('Alt+6');
    await page.getByRole('heading', { name: 'Events', exact: true }).waitFor();
    assert.equal(script.failed + sheet.failed, 2, 'both files failed once');
    const styled = await page.evaluate(`[...document.querySelectorAll('link[rel="stylesheet"]')].some(
      (l) => l.href.includes('/event-timeline-') && l.sheet !== null)`);
    assert.ok(styled, "the screen's stylesheet is loaded");
    // Made after the stream's failed opening: seen only if the app opened it again.
    assert.equal(events.failed, 1);
    await engine('POST', '/containers/create?name=after-failure', { Image: image, Cmd: ['true'] });
    await page
      .getByRole('list', { name: 'Events' })
      .locator('.event-row')
      .filter({ hasText: 'after-failure' })
      .filter({ hasText: 'create' })
      .first()
      .waitFor();
  });

  test('a screen that cannot load says so in its place; the window goes on, and a reload brings it', async () => {
    const never = /\/assets\/settings-[\w-]+\.js$/;
    const failures = await failFirst(page, never, Infinity);
    await page.evaluate(`location.hash = '#/settings'`);
    const failed = page.getByRole('alert').filter({ hasText: 'This screen could not be shown' });
    await failed.waitFor();
    // Three tries (the first also preloads the script, a fourth request).
    assert.ok(failures.failed >= 3, `tried ${failures.failed} times`);
    await session.shot('screen-failed');
    // The shell still works: another screen opens.
    await page.keyboard.press('Alt+1');
    await page.getByRole('heading', { name: 'Containers', exact: true }).waitFor();
    assert.equal(await failed.count(), 0);
    await page.unroute(never);
    await page.evaluate(`location.hash = '#/settings'`);
    await page.getByRole('button', { name: 'Reload the window' }).click();
    await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
  });
});

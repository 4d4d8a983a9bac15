// The logs view past the browser's height cap, in web mode against the real svcd: a container that
// logged 2,500,000 lines (45,000,000 px of rows at 18 px, more than an element may be tall) and
// then a line every 0.2 s, loaded whole; follow keeping the newest line in view until the wheel
// leaves the end, the first and the last line reachable by the scrollbar and by Home/End, a wheel
// notch moving a few lines, search's next/previous landing on each hit.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { engineCaller, pullBusybox } from './engine-calls';
import { missingPrerequisite, startSession, type Session } from './web-mode-fixture';
import { pollUntil } from '../daemon/testing/poll';

const LINES = 2_500_000;
const TICK = /^tick (\d+)$/;
/** Chromium's cap on an element's height, px. */
const CAP = 33_554_428;

const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000) =>
  pollUntil(what, probe, { timeoutMs, intervalMs: 200 });

const logList = (page: Page) => page.getByRole('list', { name: 'Log lines' });

/** The lines wholly inside the list's view, top to bottom, after the next two frames. */
async function visibleLines(page: Page): Promise<string[]> {
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  return logList(page).evaluate((el) => {
    const view = el.getBoundingClientRect();
    const bottom = view.top + el.clientTop + el.clientHeight;
    return [...el.querySelectorAll('.line')]
      .filter((l) => {
        const r = l.getBoundingClientRect();
        return r.top >= view.top && r.bottom <= bottom + 0.5;
      })
      .map((l) => l.textContent ?? '');
  });
}

/** The scrollbar dragged to its top or its end. */
const scrollbarTo = (page: Page, to: 'top' | 'end') =>
  logList(page).evaluate((el, end) => (el.scrollTop = end ? el.scrollHeight : 0), to === 'end');

/** The "N lines loaded" figure of the logs toolbar. */
async function loaded(page: Page): Promise<number> {
  const m = /([\d,]+) lines? loaded/.exec(await page.getByTestId('log-status').innerText());
  return m ? Number(m[1].replace(/,/g, '')) : -1;
}

describe('logs past the browser height cap in web mode', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let page: Page;
  let id = '';

  before(async () => {
    session = await startSession();
    page = session.page;
    const engine = engineCaller(session.app);
    const image = await pullBusybox(session.app);
    ({ Id: id } = (await engine('POST', '/containers/create?name=e2e-millions', {
      Image: image,
      Cmd: ['sh', '-c', `seq 1 ${LINES}; i=0; while :; do echo tick $i; i=$((i+1)); sleep 0.2; done`],
    })) as { Id: string });
    await engine('POST', `/containers/${id}/start`);
    // All of the numbers are in the log before the page opens it.
    await until('the numbers logged', async () => {
      const res = await fetch(`${session.app.base}/engine/containers/${id}/logs?stdout=1&tail=1`, {
        headers: { authorization: `Bearer ${session.app.token}` },
      });
      return (await res.text()).includes('tick') ? true : undefined;
    });
  });

  after(async () => {
    await session?.stop();
  });

  test('2,500,000 lines: follow at the end, first and last reachable, a small wheel step', async () => {
    await page.goto(`${session.app.launchUrl}#/containers/${id}/logs`);
    await page.getByLabel('Timestamps').uncheck();
    await page.getByLabel('Lines to load').selectOption('all');
    await until(
      'all lines loaded',
      async () => {
        const status = await page.getByTestId('log-status').innerText();
        return (await loaded(page)) > LINES && !/loading/.test(status) ? true : undefined;
      },
      120_000,
    );
    const space = await logList(page).evaluate((el) => el.scrollHeight);
    assert.ok(space < CAP && space < LINES * 18, `a scrolled space of ${space} px`);
    assert.ok((await page.locator('.log-lines .line').count()) < 150);
    // Following: the newest line at the view's bottom, and the next ones as they come.
    const newest = async () => Number(TICK.exec((await visibleLines(page)).at(-1) ?? '')?.[1] ?? -1);
    const tick = await until('a tick at the end', async () => ((await newest()) >= 0 ? newest() : undefined));
    await until('newer ticks at the end', async () => ((await newest()) >= tick + 3 ? true : undefined));
    // A notch up leaves the end, and following stops: the view stays on the same lines while
    // newer ones come below it.
    const box = (await logList(page).boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, -100);
    await until('follow off', async () => ((await page.getByLabel('Follow').isChecked()) ? undefined : true));
    const stayed = await visibleLines(page);
    const count = await loaded(page);
    await until('newer lines loaded', async () => ((await loaded(page)) >= count + 3 ? true : undefined));
    assert.deepEqual(await visibleLines(page), stayed);

    // The scrollbar at the top shows line 1, at the end the last line.
    await scrollbarTo(page, 'top');
    assert.deepEqual((await visibleLines(page)).slice(0, 3), ['1', '2', '3']);
    await scrollbarTo(page, 'end');
    assert.match((await visibleLines(page)).at(-1)!, TICK);

    // Home and End on the focused list.
    await logList(page).focus();
    await page.keyboard.press('Home');
    assert.equal((await visibleLines(page))[0], '1');
    await page.keyboard.press('End');
    assert.match((await visibleLines(page)).at(-1)!, TICK);

    // From the middle (the scrollbar's thumb half way), a wheel notch moves the lines a few
    // rows, not the thousands a scroll px is worth here; down and back up.
    await logList(page).evaluate((el) => (el.scrollTop = (el.scrollHeight - el.clientHeight) / 2));
    const middle = await visibleLines(page);
    const at = Number(middle[0]);
    assert.ok(Math.abs(at - LINES / 2) < LINES / 100, `the middle shows line ${at}`);
    await page.mouse.wheel(0, 100);
    const down = Number((await visibleLines(page))[0]);
    assert.ok(down > at && down - at <= middle.length, `a notch down went from line ${at} to ${down}`);
    await page.mouse.wheel(0, -100);
    assert.equal(Number((await visibleLines(page))[0]), at);
    // Arrow keys move a row or two at a time too.
    await page.keyboard.press('ArrowDown');
    const arrow = Number((await visibleLines(page))[0]);
    assert.ok(arrow > at && arrow - at <= 3, `ArrowDown went from line ${at} to ${arrow}`);
    await session.shot('logs-2.5M-middle');
  });

  test('search near the middle lands on the hit, next and previous on each one', async () => {
    // 1234567 is the only line holding it, half way down.
    await page.getByLabel('Search logs').fill('1234567');
    await until('one match', async () =>
      /1 of 1 match\b/.test(await page.getByTestId('log-status').innerText()) ? true : undefined,
    );
    const current = page.locator('.log-lines .line.current');
    await current.waitFor();
    assert.ok((await visibleLines(page)).includes('1234567'));
    assert.equal(await current.innerText(), '1234567');

    // 123456 is in 13 lines, from the start (123456) past the middle (1234560-1234569) to the
    // last third (2123456): each hit in turn is on screen and marked.
    await page.getByLabel('Search logs').fill('123456');
    await until('the matches of 123456', async () =>
      /1 of 13 matches/.test(await page.getByTestId('log-status').innerText()) ? true : undefined,
    );
    const hits = ['123456', '1123456', ...Array.from({ length: 10 }, (_, i) => `123456${i}`), '2123456'];
    for (const [n, hit] of hits.entries()) {
      if (n) await page.getByRole('button', { name: 'Next match' }).click();
      await until(`hit ${hit}`, async () => ((await current.innerText()) === hit ? true : undefined));
      assert.ok((await visibleLines(page)).includes(hit), `${hit} on screen`);
    }
    // Next goes round to the first; previous back to the last, at the log's last third.
    await page.getByRole('button', { name: 'Next match' }).click();
    await until('round to the first', async () =>
      (await current.innerText()) === '123456' ? true : undefined,
    );
    assert.ok((await visibleLines(page)).includes('123456'));
    await page.getByRole('button', { name: 'Previous match' }).click();
    await until('back to the last', async () =>
      (await current.innerText()) === '2123456' ? true : undefined,
    );
    assert.ok((await visibleLines(page)).includes('2123456'));
    await session.shot('logs-2.5M-searched');
  });
});

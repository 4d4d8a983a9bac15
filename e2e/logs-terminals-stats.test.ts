// Logs, terminals and stats at scale in web mode against the real svcd: a container with 100,000
// log lines paged back from the end, loaded whole, scrolled to the top and searched; follow that
// appends; all lines shown from their end while the rest loads; the stream and timestamp toggles;
// the full log downloaded as a file; two terminals with the shell picker, reconnecting after a
// restart; CPU/RAM sparklines in the containers list from one shared timer, not a stats stream
// per row.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { engineCaller, pullBusybox, type EngineCall } from './engine-calls';
import { missingPrerequisite, startSession, type Session } from './web-mode-fixture';
import { pollUntil } from '../daemon/testing/poll';

const LINES = 100_000;
// The numbers first (all written at once), one line on stderr, then a line every 0.3 s to follow.
const BIG = `seq 1 ${LINES}; echo err-marker >&2; i=0; while true; do echo tick $i; i=$((i+1)); sleep 0.3; done`;

const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000) =>
  pollUntil(what, probe, { timeoutMs, intervalMs: 200 });

/** The "N lines loaded" figure of the logs toolbar. */
async function loaded(page: Page): Promise<number> {
  const m = /([\d,]+) lines? loaded/.exec(await page.getByTestId('log-status').innerText());
  return m ? Number(m[1].replace(/,/g, '')) : -1;
}

const rows = (page: Page) => page.locator('.log-lines .line');
const logList = (page: Page) => page.getByRole('list', { name: 'Log lines' });
/**
 * Scrolls the list as a user would see it: the rows follow in the scroll event, which comes with
 * the next frame, so the promise ends after that frame.
 */
const scrollLogs = async (page: Page, to: 'top' | 'bottom' | number) => {
  await logList(page).evaluate(
    (el, top) => (el.scrollTop = top === 'top' ? 0 : top === 'bottom' ? el.scrollHeight : top),
    to,
  );
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
};

describe('logs, terminals and stats at scale in web mode', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let page: Page;
  let engine: EngineCall;
  let big = '';
  let shell = '';

  before(async () => {
    session = await startSession();
    page = session.page;
    engine = engineCaller(session.app);
    const image = await pullBusybox(session.app);
    const run = async (name: string, cmd: string, tty: boolean) => {
      const { Id } = (await engine('POST', `/containers/create?name=${name}`, {
        Image: image,
        Cmd: ['sh', '-c', cmd],
        Tty: tty,
      })) as { Id: string };
      await engine('POST', `/containers/${Id}/start`);
      return Id;
    };
    big = await run('e2e-100k', BIG, false);
    // The test image's only shell is sh: ash is added, so the picker has two to offer.
    shell = await run('e2e-shell', 'ln -s busybox /bin/ash; while :; do sleep 1; done', true);
    // All of the numbers are in the log before the page opens it.
    await until('the 100,000 lines logged', async () => {
      const res = await fetch(`${session.app.base}/engine/containers/${big}/logs?stderr=1`, {
        headers: { authorization: `Bearer ${session.app.token}` },
      });
      return (await res.text()).includes('err-marker') ? true : undefined;
    });
  });

  after(async () => {
    await session?.stop();
  });

  test('pages back from the end to line 1 of 100,000, scrolled to the top', async () => {
    await page.goto(`${session.app.launchUrl}#/containers/${big}/logs`);
    await until('the last 1,000 lines', async () => ((await loaded(page)) >= 1000 ? true : undefined));
    // Only a screenful of rows is in the page, whatever the count.
    assert.ok((await rows(page).count()) < 150, `${await rows(page).count()} rows rendered`);
    await page.getByLabel('Follow').uncheck();
    await page.getByLabel('Timestamps').uncheck();
    // One row down from the top: the first line is rendered (above the view) and nothing loads yet.
    await scrollLogs(page, 18);
    const oldest = Number(await rows(page).first().innerText());
    await scrollLogs(page, 'top');
    assert.ok(oldest > 1, `the first of the last 1,000 lines is ${oldest}`);
    // Reaching the top brings the lines before, and the view stays where it was: the rows around
    // the seam run on without a gap or a line twice.
    await until('an older page', async () => ((await loaded(page)) > 1000 + 100 ? true : undefined));
    // (Numbers only: where the stderr line falls among them depends on when svcd read each pipe.)
    const seam = (await rows(page).allInnerTexts()).filter((t) => /^\d+$/.test(t)).map(Number);
    assert.ok(seam.includes(oldest) && seam.includes(oldest - 1), `${oldest}: ${seam.join(' ')}`);
    assert.deepEqual(
      seam,
      seam.map((_, i) => seam[0] + i),
    );
    // On up to the very first line.
    await until(
      'line 1 at the top',
      async () => {
        await scrollLogs(page, 'top');
        return (await rows(page).first().innerText()) === '1' ? true : undefined;
      },
      60_000,
    );
    assert.deepEqual((await rows(page).allInnerTexts()).slice(0, 3), ['1', '2', '3']);
    assert.ok((await loaded(page)) > LINES);
    assert.doesNotMatch(await page.getByTestId('log-status').innerText(), /older lines not loaded/);
    assert.ok((await rows(page).count()) < 150);

    // With timestamps: the engine's RFC 3339 time in front of each line, no reload needed.
    await page.getByLabel('Timestamps').check();
    assert.match(await rows(page).first().innerText(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z 1$/);
    await page.getByLabel('Timestamps').uncheck();

    // Search: the match far below is found, counted, scrolled to and highlighted.
    await page.getByLabel('Search logs').fill('77777');
    await until('one match', async () =>
      /1 of 1 match\b/.test(await page.getByTestId('log-status').innerText()) ? true : undefined,
    );
    const current = page.locator('.log-lines .line.current');
    await current.waitFor();
    assert.equal(await current.innerText(), '77777');
    assert.equal(await current.locator('mark').innerText(), '77777');
    // Two matches: next and previous go round them.
    await page.getByLabel('Search logs').fill('9999');
    await until('the matches of 9999', async () =>
      /1 of \d+ matches/.test(await page.getByTestId('log-status').innerText()) ? true : undefined,
    );
    const firstMatch = await current.innerText();
    await page.getByRole('button', { name: 'Next match' }).click();
    await until('the next match', async () =>
      (await current.innerText()) !== firstMatch ? true : undefined,
    );
    await page.getByRole('button', { name: 'Previous match' }).click();
    await until('back at the first', async () =>
      (await current.innerText()) === firstMatch ? true : undefined,
    );
    assert.equal(firstMatch, '9999');
    await session.shot('logs-100k-searched');
    await page.getByLabel('Search logs').fill('');
  });

  test('follow appends the new lines at the end', async () => {
    await page.getByLabel('Follow').check();
    const last = async () => {
      const texts = await rows(page).allInnerTexts();
      return Math.max(-1, ...texts.map((t) => Number(/^tick (\d+)$/.exec(t)?.[1] ?? -1)));
    };
    const first = await until('a tick line', async () => ((await last()) >= 0 ? last() : undefined));
    await until('newer tick lines', async () => ((await last()) >= first + 3 ? true : undefined));
    assert.ok((await loaded(page)) > LINES);
    assert.ok((await rows(page).count()) < 150);
  });

  test('all lines: the end shows first, then the lines before it come, none twice or missing', async () => {
    // Seen in the page at any frame: the log's end on screen while the rest is still coming.
    const endFirst = page.waitForFunction(
      () => {
        const doc = (
          globalThis as unknown as {
            document: { querySelector(s: string): { innerText: string } | null };
          }
        ).document;
        const status = doc.querySelector('[data-testid=log-status]')?.innerText ?? '';
        const last = doc.querySelector('.log-lines .vrow:last-child .line')?.innerText ?? '';
        return /loading the lines before them/.test(status) && /^tick \d+$/.test(last);
      },
      undefined,
      { polling: 'raf', timeout: 30_000 },
    );
    await page.getByLabel('Lines to load').selectOption('all');
    await endFirst;
    await until('all lines', async () => {
      const status = await page.getByTestId('log-status').innerText();
      return (await loaded(page)) > LINES && !/loading/.test(status) ? true : undefined;
    });
    // One status line counts both the lines loaded and the tick lines among them: the rest are
    // the numbers and the stderr line, each exactly once.
    await page.getByLabel('Search logs').fill('tick ');
    await until('the ticks counted', async () => {
      const m = /of ([\d,]+) matches · ([\d,]+) lines loaded/.exec(
        await page.getByTestId('log-status').innerText(),
      );
      return m ? [m[1], m[2]].map((n) => Number(n.replace(/,/g, ''))) : undefined;
    }).then(([ticks, all]) => assert.equal(all - ticks, LINES + 1));
    await page.getByLabel('Search logs').fill('');
    await scrollLogs(page, 'top');
    assert.deepEqual((await rows(page).allInnerTexts()).slice(0, 3), ['1', '2', '3']);
    await page.getByLabel('Lines to load').selectOption('1000');
    await page.getByLabel('Follow').check();
  });

  test('the stream toggle shows stderr alone, and both again', async () => {
    await page.getByLabel('Streams').selectOption('stderr');
    // The last 1,000 lines of the log hold no stderr line: older ones load from the button, or
    // by themselves when the list, shrunk to nothing, scrolls to its top.
    const older = page.getByRole('button', { name: 'Load older lines' });
    let shown: string[] = [];
    await until('stderr only', async () => {
      // (Neither waits for a button that is not there, or not any more: the lines may come by
      // themselves, and the button goes once they have.)
      if ((await older.count()) && (await older.isEnabled({ timeout: 1000 }).catch(() => false)))
        await older.click({ timeout: 1000 }).catch(() => undefined);
      shown = await rows(page).allInnerTexts();
      return shown.join('|') === 'err-marker' ? true : undefined;
    }).catch((err: Error) => assert.fail(`${err.message}: ${shown.slice(0, 5).join('|')}`));
    assert.equal(await rows(page).first().getAttribute('data-stream'), 'stderr');
    await page.getByLabel('Streams').selectOption('stdout');
    await until('stdout lines', async () => ((await loaded(page)) >= 1000 ? true : undefined));
    assert.equal(await page.locator('.log-lines .line[data-stream="stderr"]').count(), 0);
    assert.ok((await rows(page).count()) > 0);
    await page.getByLabel('Streams').selectOption('both');
  });

  test('downloads the full log as plain lines, streamed by the gateway', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download full log' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'e2e-100k.log');
    const lines = (await readFile(await download.path())).toString('utf8').split('\n');
    // The stderr line is among the numbers where svcd read it from its pipe; no framing bytes.
    assert.equal(lines.filter((l) => l === 'err-marker').length, 1);
    const numbers = lines.filter((l) => /^\d+$/.test(l));
    assert.deepEqual(
      numbers,
      Array.from({ length: LINES }, (_, i) => String(i + 1)),
    );
    const ticks = lines.filter((l) => l.startsWith('tick '));
    assert.ok(ticks.length > 3 && ticks[0] === 'tick 0');
    assert.equal(lines.length, LINES + 1 + ticks.length + 1, 'nothing but the lines and the final newline');
  });

  test('two terminals with the shell picker; both reconnect after a restart', async () => {
    await page.goto(`${session.app.launchUrl}#/containers/${shell}/terminal`);
    const picker = page.getByLabel('Shell');
    await page.locator('.badge.term-connected').waitFor({ timeout: 20_000 });
    // Only the shells the image holds: busybox has sh and ash, not bash.
    const offered = await picker.locator('option').allInnerTexts();
    assert.deepEqual(offered, ['/bin/sh', '/bin/ash']);
    const visible = page.locator('.terminal-session:not([hidden])');
    const say = async (text: string) => {
      await visible.getByTestId('terminal').click();
      await page.keyboard.type(text);
      await page.keyboard.press('Enter');
    };
    // On a timeout the error shows what the screen read instead.
    let screen: string[] = [];
    const shows = (text: string) =>
      until(`a row reading ${text}`, async () => {
        screen = await visible.locator('.xterm-rows > div').allInnerTexts();
        return screen.some((t) => t.trim() === text) ? true : undefined;
      }).catch((err: Error) => {
        throw new Error(`${err.message}; the terminal read:\n${screen.join('\n').trimEnd()}`);
      });
    await say('echo one-$((1+1))');
    await shows('one-2');

    await picker.selectOption('/bin/ash');
    await page.getByRole('button', { name: 'New terminal' }).click();
    const tabs = page.getByRole('tablist', { name: 'Terminals' }).getByRole('tab');
    assert.deepEqual(await tabs.allInnerTexts(), ['1: /bin/sh', '2: /bin/ash']);
    await visible.locator('.badge.term-connected').waitFor({ timeout: 20_000 });
    await say('echo $0');
    await shows('/bin/ash');
    // The first terminal kept its session and its screen.
    await tabs.first().click();
    await shows('one-2');
    await session.shot('terminals-two');

    await engine('POST', `/containers/${shell}/restart?t=1`);
    // The old sessions end with the container; each comes back by itself on the new start, in a
    // new screen. The restart may answer before the old sockets have closed, so "connected" alone
    // could still be the old session: a reconnected one no longer shows what was typed before.
    const sessions = page.locator('.terminal-session');
    await until('both reconnected', async () => {
      const fresh = await sessions.evaluateAll(
        (all) =>
          all.filter(
            (s) =>
              s.querySelector('.badge.term-connected') &&
              !/one-2|\/bin\/ash/.test(s.querySelector('.xterm-rows')?.textContent ?? ''),
          ).length,
      );
      return fresh === 2 ? true : undefined;
    });
    await say('echo back-$((2+2))');
    await shows('back-4');
  });

  test('the list shows CPU/RAM sparklines from one polling timer, one request a round for all rows', async () => {
    const rounds: string[][] = [];
    const perContainer: string[] = [];
    page.on('request', (r) => {
      const batch = /\/stats-samples\/([^/?]+)/.exec(r.url());
      if (batch) rounds.push(batch[1].split(','));
      if (/\/containers\/[^/]+\/stats/.test(r.url())) perContainer.push(r.url());
    });
    await page.goto(`${session.app.launchUrl}#/containers`);
    const usage = page.getByTestId('container-usage');
    await until('two rows with figures', async () => ((await usage.count()) === 2 ? true : undefined));
    for (const text of await usage.allInnerTexts()) assert.match(text, /^\d+\.\d % · \d/);
    assert.equal(await page.getByTestId('sparkline').count(), 2);
    // Two more rounds of the timer: each one request that names every running container in view.
    const seen = rounds.length;
    await until('two more polling rounds', async () => (rounds.length >= seen + 2 ? true : undefined));
    for (const ids of rounds.slice(seen)) assert.deepEqual([...ids].sort(), [big, shell].sort());
    assert.deepEqual(perContainer, [], 'no stats request (nor stream) per row');
    await session.shot('containers-sparklines');
  });
});

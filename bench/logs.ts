// The logs view at scale in web mode, in Debian's Chromium: a container that logged 1,000,000
// lines; time to the first screen of its logs tab (its last line shown) opened with the last
// 1,000 lines and then with all lines, time to all of them loaded, the frame times of scrolling
// through them with the mouse wheel, by notches and a screen at a time (p95; 16.7 ms is 60
// frames a second), the renderer's CPU time per frame (what a frame costs, whatever the
// machine's load), the same wheel on a static page for reference (the frame times the machine
// manages at its present load) and the renderer's JS heap with them loaded; then, in a browser
// whose frames are not held to vsync, what a scrolled frame costs, the view's and the static
// page's. No peer: Docker Engine has no UI to compare with.
import { availableParallelism, loadavg } from 'node:os';
import type { Page } from 'playwright-core';
import { launchChromium, type WebApp } from '../e2e/web-mode-fixture';
import { heapMB, loadedLines, withLoggingContainer } from './log-view';
import { pollUntil } from '../daemon/testing/poll';
import type { BenchRow, BenchSuite } from './types';
import {
  frameCosts,
  mainThreadFrameCpu,
  percentile,
  staticPage,
  UNTHROTTLED_FRAMES,
  wheelFrames,
} from './wheel-frames';

const LINES = 1_000_000;
/** Wheel events sent for each way of scrolling, 60 a second. */
const WHEELS = 300;
/** One notch of a mouse wheel, px. */
const NOTCH = 100;
/** Rows of the static reference page (enough for the screenful scroll). */
const STATIC_ROWS = 20_000;
/** Frames scrolled for each way of scrolling where frames are not held to vsync. */
const FRAMES = 300;
const VIEWPORT = { width: 1440, height: 900 };

/** The machine's load, printed beside frame figures: they grow with it. */
function printLoad(what: string): void {
  process.stderr.write(
    `bench logs: ${what}, load average ${loadavg()[0].toFixed(2)} on ${availableParallelism()} cores\n`,
  );
}

/**
 * Waits, checking every frame, for the log's last line in the view, and the status no longer
 * `before` (the view has started again).
 */
async function lastLineShown(page: Page, before: string | undefined): Promise<void> {
  // (Runs in the page; the bench is compiled without the DOM's types.)
  await page.waitForFunction(
    (was) => {
      interface Node {
        innerText: string;
        textContent: string;
      }
      const doc = (
        globalThis as unknown as {
          document: { querySelector(s: string): Node | null; querySelectorAll(s: string): Node[] };
        }
      ).document;
      const status = doc.querySelector('[data-testid=log-status]');
      if (!status || status.innerText === was) return false;
      return [...doc.querySelectorAll('.log-lines .line')].some((l) => l.textContent.endsWith(' done'));
    },
    before ?? '',
    { polling: 'raf', timeout: 300_000 },
  );
}

export const logsSuite: BenchSuite = {
  name: 'logs',
  async run() {
    const script = `seq 1 ${LINES}; echo done; while :; do sleep 60; done`;
    const rows = await withLoggingContainer('logs', 'bench-logs', script, async (app, Id) => {
      await pollUntil(
        'the million lines logged',
        async () => {
          const res = await fetch(`${app.base}/engine/containers/${Id}/logs?stdout=1&tail=1`, {
            headers: { authorization: `Bearer ${app.token}` },
          });
          return (await res.text()).includes('done') ? true : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 500 },
      );
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: VIEWPORT });
        const t0 = performance.now();
        await page.goto(`${app.launchUrl}#/containers/${Id}/logs`);
        await lastLineShown(page, undefined);
        const firstScreen = performance.now() - t0;

        // All lines: the view starts again, and shows the end before the rest has come.
        const before = await page.getByTestId('log-status').innerText();
        const t1 = performance.now();
        await page.getByLabel('Lines to load').selectOption('all');
        await lastLineShown(page, before);
        const allFirstScreen = performance.now() - t1;
        await pollUntil(
          'all lines in the view',
          async () => ((await loadedLines(page)) > LINES ? true : undefined),
          { timeoutMs: 300_000, intervalMs: 250 },
        );
        const allLoaded = performance.now() - t1;
        await page.getByLabel('Follow').uncheck();
        const list = page.getByRole('list', { name: 'Log lines' });
        const screen = await list.evaluate((el) => el.clientHeight);
        // Content taller than the list's scrolled space moves `ratio` px per px scrolled (the
        // space's two ends are the content's).
        const rowPx = await list
          .locator('.vrow')
          .first()
          .evaluate((el) => el.offsetHeight);
        const space = await list.evaluate((el) => el.scrollHeight);
        const ratio = Math.max(1, ((await loadedLines(page)) * rowPx - screen) / (space - screen));
        const scrollRows: BenchRow[] = [];
        // Wheel notches, then a screenful an event (every row on screen new in every frame).
        for (const [how, delta] of [
          [`${NOTCH} px wheel steps`, NOTCH],
          ['a screen a wheel event', screen],
        ] as const) {
          const scroll = await wheelFrames(page, list, WHEELS, -delta);
          const moved = scroll.scrolled * ratio;
          if (moved < (delta * WHEELS) / 2)
            throw new Error(`the wheel scrolled the list ${moved} px, not ${delta * WHEELS}`);
          // Frame times stretch when other programs share the cores: the load goes with them.
          printLoad(`${WHEELS} wheel events of ${delta} px, ${scroll.intervals.length} frames`);
          const name = `logs 1M lines, scrolled ${how}`;
          scrollRows.push(
            {
              name: `${name}: frame p95`,
              unit: 'ms',
              ours: percentile(scroll.intervals, 0.95),
              higherIsBetter: false,
              target: '<= 16.7',
            },
            {
              name: `${name}: frame p50`,
              unit: 'ms',
              ours: percentile(scroll.intervals, 0.5),
              higherIsBetter: false,
            },
            {
              name: `${name}: renderer CPU per frame`,
              unit: 'ms',
              ours: scroll.cpuPerFrame,
              higherIsBetter: false,
            },
          );
        }

        const heap = await heapMB(page);
        const reference = await staticPage(browser, STATIC_ROWS);
        for (const [how, delta] of [
          [`${NOTCH} px wheel steps`, NOTCH],
          ['a screen a wheel event', screen],
        ] as const) {
          const scroll = await wheelFrames(reference.page, reference.list, WHEELS, -delta);
          scrollRows.push({
            name: `reference: a static page of ${STATIC_ROWS.toLocaleString('en')} rows, scrolled ${how}: frame p95`,
            unit: 'ms',
            ours: percentile(scroll.intervals, 0.95),
            higherIsBetter: false,
          });
        }
        await reference.page.close();
        await page.close();
        const costRows = await frameCostRows(app, Id, screen);
        const rows: BenchRow[] = [
          {
            name: 'logs 1M lines: first screen (page opened, last 1,000 lines)',
            unit: 'ms',
            ours: firstScreen,
            higherIsBetter: false,
          },
          {
            name: 'logs 1M lines: first screen of all lines',
            unit: 'ms',
            ours: allFirstScreen,
            higherIsBetter: false,
          },
          { name: 'logs 1M lines: all loaded', unit: 'ms', ours: allLoaded, higherIsBetter: false },
          ...scrollRows,
          ...costRows,
          {
            name: 'logs 1M lines: renderer JS heap',
            unit: 'MB',
            ours: heap,
            higherIsBetter: false,
          },
        ];
        return rows;
      } finally {
        await browser.close();
      }
    });
    return rows ?? [];
  },
};

/**
 * What a scrolled frame costs, in a browser of its own whose frames are not held to vsync: the
 * logs tab with all lines loaded and the static reference page, scrolled by a notch and by a
 * screen every frame, one after the other so that both see the same load.
 */
async function frameCostRows(app: WebApp, id: string, screen: number): Promise<BenchRow[]> {
  const browser = await launchChromium(UNTHROTTLED_FRAMES);
  try {
    const page = await browser.newPage({ viewport: VIEWPORT });
    await page.goto(`${app.launchUrl}#/containers/${id}/logs`);
    await lastLineShown(page, undefined);
    await page.getByLabel('Lines to load').selectOption('all');
    await pollUntil(
      'all lines in the view',
      async () => ((await loadedLines(page)) > LINES ? true : undefined),
      {
        timeoutMs: 300_000,
        intervalMs: 250,
      },
    );
    await page.getByLabel('Follow').uncheck();
    const lists = [
      { name: 'logs 1M lines', list: page.getByRole('list', { name: 'Log lines' }), target: '<= 16.7' },
      {
        name: `reference: a static page of ${STATIC_ROWS.toLocaleString('en')} rows`,
        list: (await staticPage(browser, STATIC_ROWS)).list,
        target: undefined,
      },
    ];
    const rows: BenchRow[] = [];
    for (const [how, delta] of [
      [`${NOTCH} px`, NOTCH],
      ['a screen', screen],
    ] as const) {
      for (const { name, list, target } of lists) {
        let costs: number[] = [];
        const cpu = await mainThreadFrameCpu(browser, async () => {
          costs = await frameCosts(list, FRAMES, -delta);
        });
        printLoad(`${name}, ${costs.length} unthrottled frames of ${delta} px`);
        const row = `${name}, scrolled ${how} a frame, frames not held to vsync`;
        rows.push(
          {
            name: `${row}: frame cost p95`,
            unit: 'ms',
            ours: percentile(costs, 0.95),
            higherIsBetter: false,
            target,
          },
          { name: `${row}: frame cost p50`, unit: 'ms', ours: percentile(costs, 0.5), higherIsBetter: false },
          {
            name: `${row}: main-thread CPU per frame p95`,
            unit: 'ms',
            ours: percentile(cpu, 0.95),
            higherIsBetter: false,
          },
          {
            name: `${row}: main-thread CPU per frame p50`,
            unit: 'ms',
            ours: percentile(cpu, 0.5),
            higherIsBetter: false,
          },
        );
      }
    }
    return rows;
  } finally {
    await browser.close();
  }
}

// The logs view at scale in web mode, in Debian's Chromium: a container that logged 1,000,000
// lines; time to the first screen of its logs tab (its last line shown) opened with the last
// 1,000 lines and then with all lines, time to all of them loaded, the frame times
// of scrolling through them with the mouse wheel (p95; 16.7 ms is 60 frames a second), the
// renderer's CPU time per frame (what a frame costs, whatever the machine's load) and the
// renderer's JS heap with them loaded. No peer: Docker Engine has no UI to compare with.
import { availableParallelism, loadavg } from 'node:os';
import type { Page } from 'playwright-core';
import { engineCaller, pullBusybox } from '../e2e/engine-calls';
import { launchChromium, missingPrerequisite, startWebApp, waitForServices } from '../e2e/web-mode-fixture';
import { pollUntil } from '../daemon/testing/poll';
import type { BenchRow, BenchSuite } from './types';
import { percentile, wheelFrames } from './wheel-frames';

const LINES = 1_000_000;
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

/** Wheel events of a screenful each, one a frame: every row on screen is new in every frame. */
const WHEELS = 300;

async function loadedLines(page: Page): Promise<number> {
  const m = /([\d,]+) lines? loaded/.exec(await page.getByTestId('log-status').innerText());
  return m ? Number(m[1].replace(/,/g, '')) : -1;
}

export const logsSuite: BenchSuite = {
  name: 'logs',
  async run() {
    const missing = missingPrerequisite();
    if (missing) {
      process.stderr.write(`bench logs: skipped, ${missing}\n`);
      return [];
    }
    const app = await startWebApp();
    try {
      await waitForServices(app);
      const engine = engineCaller(app);
      const image = await pullBusybox(app);
      const { Id } = (await engine('POST', '/containers/create?name=bench-logs', {
        Image: image,
        Cmd: ['sh', '-c', `seq 1 ${LINES}; echo done; while :; do sleep 60; done`],
      })) as { Id: string };
      await engine('POST', `/containers/${Id}/start`);
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
        const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
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
        const scroll = await wheelFrames(page, list, WHEELS, -screen);
        if (scroll.scrolled < (screen * WHEELS) / 2)
          throw new Error(`the wheel scrolled the list ${scroll.scrolled} px, not ${screen * WHEELS}`);
        // Frame times stretch when other programs share the cores: the load goes with them.
        process.stderr.write(
          `bench logs: ${WHEELS} wheel events of ${screen} px, ${scroll.intervals.length} frames, ` +
            `load average ${loadavg()[0].toFixed(2)} on ${availableParallelism()} cores\n`,
        );

        const cdp = await page.context().newCDPSession(page);
        await cdp.send('HeapProfiler.collectGarbage');
        // Metrics read zero until the domain is enabled.
        await cdp.send('Performance.enable');
        const { metrics } = await cdp.send('Performance.getMetrics');
        const heap = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
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
          {
            name: 'logs 1M lines: scroll frame p95',
            unit: 'ms',
            ours: percentile(scroll.intervals, 0.95),
            higherIsBetter: false,
            target: '<= 16.7',
          },
          {
            name: 'logs 1M lines: scroll frame p50',
            unit: 'ms',
            ours: percentile(scroll.intervals, 0.5),
            higherIsBetter: false,
          },
          {
            name: 'logs 1M lines: renderer CPU per scroll frame',
            unit: 'ms',
            ours: scroll.cpuPerFrame,
            higherIsBetter: false,
          },
          {
            name: 'logs 1M lines: renderer JS heap',
            unit: 'MB',
            ours: heap / 1024 / 1024,
            higherIsBetter: false,
          },
        ];
        return rows;
      } finally {
        await browser.close();
      }
    } finally {
      await app.stop();
    }
  },
};

// The logs view left following a chatty container, in web mode in Debian's Chromium: the
// renderer's memory after N minutes of it. The figure is 10 minutes; by default the
// suite follows for FOLLOW_MINUTES (`--follow-minutes 10` for the full run) and prints which ran.
import { launchChromium } from '../e2e/web-mode-fixture';
import { heapMB, loadedLines, withLoggingContainer } from './log-view';
import { rssMB } from './process-memory';
import { busiestSince, rendererCpuTimes } from './renderer-process';
import type { BenchOptions, BenchRow, BenchSuite } from './types';

const FOLLOW_MINUTES = 1;
const PER_SECOND = 100;
// A line of the length a web server logs, PER_SECOND of them each second (shell builtins only).
const CHATTY = `while :; do for a in 0 1 2 3 4 5 6 7 8 9; do for b in 0 1 2 3 4 5 6 7 8 9; do
echo "GET /api/items/$a$b?page=2 200 1532 bytes in 3.1 ms (a chatty container logs this)"; done; done
sleep 1; done`;

export const logFollowSuite: BenchSuite = {
  name: 'logfollow',
  async run(options: BenchOptions): Promise<BenchRow[]> {
    const minutes = options.followMinutes ?? FOLLOW_MINUTES;
    process.stderr.write(
      `bench logfollow: following for ${minutes} min` +
        (minutes < 10 ? ' (the issue asks for 10: --follow-minutes 10)\n' : '\n'),
    );
    const rows = await withLoggingContainer('logfollow', 'bench-follow', CHATTY, async (app, Id) => {
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
        await page.goto(`${app.launchUrl}#/containers/${Id}/logs`);
        await page.locator('.log-lines .line').first().waitFor({ timeout: 60_000 });
        const cpu0 = await rendererCpuTimes(browser);
        const heapAtStart = await heapMB(page);
        const linesAtStart = await loadedLines(page);
        await new Promise((r) => setTimeout(r, minutes * 60_000));
        const lines = (await loadedLines(page)) - linesAtStart;
        const renderer = busiestSince(cpu0, await rendererCpuTimes(browser));
        const heap = await heapMB(page);
        const rss = await rssMB(renderer.pid);
        process.stderr.write(
          `bench logfollow: ${lines} lines arrived in ${minutes} min; renderer pid ${renderer.pid} ` +
            `used ${((renderer.cpuSeconds / (minutes * 60)) * 100).toFixed(1)} % CPU\n`,
        );
        const what = `logs followed ${minutes} min at ${PER_SECOND} lines/s`;
        return [
          {
            name: `${what}: renderer JS heap at the start`,
            unit: 'MB',
            ours: heapAtStart,
            higherIsBetter: false,
          },
          { name: `${what}: renderer JS heap at the end`, unit: 'MB', ours: heap, higherIsBetter: false },
          { name: `${what}: renderer RSS at the end`, unit: 'MB', ours: rss, higherIsBetter: false },
          {
            name: `${what}: renderer CPU`,
            unit: '%',
            ours: (renderer.cpuSeconds / (minutes * 60)) * 100,
            higherIsBetter: false,
          },
        ];
      } finally {
        await browser.close();
      }
    });
    return rows ?? [];
  },
};

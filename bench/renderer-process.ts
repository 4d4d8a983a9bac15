// The page's renderer process as Chromium reports it (CDP SystemInfo.getProcessInfo): its CPU
// time and, from /proc, its memory. Chromium keeps spare renderers next to the page's; the
// page's is the one that has worked the most.
import type { Browser } from 'playwright-core';

/** CPU seconds used so far by each renderer process of the browser, by process id. */
export async function rendererCpuTimes(browser: Browser): Promise<Map<number, number>> {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as {
      processInfo: Array<{ type: string; id: number; cpuTime: number }>;
    };
    return new Map(processInfo.filter((p) => p.type === 'renderer').map((p) => [p.id, p.cpuTime]));
  } finally {
    await cdp.detach();
  }
}

/** CPU seconds the busiest renderer used between two readings, and its pid. */
export function busiestSince(
  before: Map<number, number>,
  after: Map<number, number>,
): { pid: number; cpuSeconds: number } {
  let best = { pid: 0, cpuSeconds: -1 };
  for (const [pid, t] of after) {
    const used = t - (before.get(pid) ?? 0);
    if (used > best.cpuSeconds) best = { pid, cpuSeconds: used };
  }
  return best;
}

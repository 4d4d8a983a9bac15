// What the log benches share: a started web app with one busybox container running a shell
// script, and readings of its logs tab (lines loaded, the renderer's JS heap).
import type { Page } from 'playwright-core';
import { engineCaller, pullBusybox } from '../e2e/engine-calls';
import { missingPrerequisite, startWebApp, waitForServices, type WebApp } from '../e2e/web-mode-fixture';

/**
 * Runs `use` with web mode up and a container named `name` running `script`; the app stops after.
 * Undefined, with the reason printed, where web mode cannot run.
 */
export async function withLoggingContainer<T>(
  suite: string,
  name: string,
  script: string,
  use: (app: WebApp, id: string) => Promise<T>,
): Promise<T | undefined> {
  const missing = missingPrerequisite();
  if (missing) {
    process.stderr.write(`bench ${suite}: skipped, ${missing}\n`);
    return undefined;
  }
  const app = await startWebApp();
  try {
    await waitForServices(app);
    const engine = engineCaller(app);
    const image = await pullBusybox(app);
    const { Id } = (await engine('POST', `/containers/create?name=${name}`, {
      Image: image,
      Cmd: ['sh', '-c', script],
    })) as { Id: string };
    await engine('POST', `/containers/${Id}/start`);
    return await use(app, Id);
  } finally {
    await app.stop();
  }
}

/** The "N lines loaded" figure of the logs toolbar. */
export async function loadedLines(page: Page): Promise<number> {
  const m = /([\d,]+) lines? loaded/.exec(await page.getByTestId('log-status').innerText());
  return m ? Number(m[1].replace(/,/g, '')) : -1;
}

/** The page's JS heap after a full garbage collection, MB. */
export async function heapMB(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('HeapProfiler.collectGarbage');
    // Metrics read zero until the domain is enabled.
    await cdp.send('Performance.enable');
    const { metrics } = await cdp.send('Performance.getMetrics');
    return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0) / 1024 / 1024;
  } finally {
    await cdp.detach();
  }
}

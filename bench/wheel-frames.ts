// Frame times of a list scrolled by real wheel input: the mouse wheel goes through Chromium's
// input pipeline (CDP Input.dispatchMouseEvent, as a user's wheel does, hover and all), and the
// page records the time between animation frames while the list moves. A frame the main thread
// cannot finish in time shows as a long interval, whatever part of the work made it late.
import type { Browser, Locator, Page } from 'playwright-core';
import { busiestSince, rendererCpuTimes } from './renderer-process';

export interface WheelScroll {
  /** Intervals between consecutive animation frames while scrolling, ms. */
  intervals: number[];
  /** How far the list moved, px (checks that the wheel scrolled it). */
  scrolled: number;
  /** Wheel events sent. */
  events: number;
  /**
   * CPU time of the page's renderer process per frame while scrolling, ms: the work a frame
   * costs, which unlike frame times does not grow when other programs load the machine.
   */
  cpuPerFrame: number;
}

/**
 * Sends `events` wheel events of `delta` px each (negative: up) over the middle of `list`, 60 a
 * second, and returns the frame intervals from the first movement to the last.
 */
export async function wheelFrames(
  page: Page,
  list: Locator,
  events: number,
  delta: number,
): Promise<WheelScroll> {
  const box = await list.boundingBox();
  if (!box) throw new Error('the list is not on screen');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  // (Runs in the page; the bench is compiled without the DOM's types.) The position is read in
  // the scroll event, before the page's own handlers change the rows: read in the frame
  // callback, it would make the browser lay them out there.
  await list.evaluate((el) => {
    const g = globalThis as unknown as {
      requestAnimationFrame(cb: () => void): number;
      addEventListener(type: string, cb: () => void, opts: object): void;
      __wheelFrames?: { times: number[]; tops: number[]; on: boolean };
    };
    const rec = { times: [] as number[], tops: [] as number[], on: true };
    g.__wheelFrames = rec;
    let top = el.scrollTop;
    g.addEventListener('scroll', () => (top = el.scrollTop), { capture: true, passive: true });
    const step = () => {
      rec.times.push(performance.now());
      rec.tops.push(top);
      if (rec.on) g.requestAnimationFrame(step);
    };
    g.requestAnimationFrame(step);
  });
  // Sent at a steady 60 a second without waiting for each to be handled, as a wheel does: a
  // renderer that falls behind gets them coalesced, and its frames come late.
  const cdp = await page.context().newCDPSession(page);
  const browser = page.context().browser()!;
  const cpu0 = await rendererCpuTimes(browser);
  const p0 = await page.evaluate(() => performance.now());
  const sent: Promise<unknown>[] = [];
  const t0 = performance.now();
  for (let i = 0; i < events; i++) {
    sent.push(
      cdp.send('Input.dispatchMouseEvent', {
        type: 'mouseWheel',
        x: box.x + box.width / 2,
        y: box.y + box.height / 2,
        deltaX: 0,
        deltaY: delta,
      }),
    );
    const wait = t0 + ((i + 1) * 1000) / 60 - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await Promise.all(sent);
  await cdp.detach();
  // Until the list stops moving: a smooth-scroll animation may run on after the last event.
  const settled = () => list.evaluate((el) => el.scrollTop);
  for (let top = await settled(); ;) {
    await page.evaluate('new Promise((r) => setTimeout(r, 100))');
    const now = await settled();
    if (now === top) break;
    top = now;
  }
  const cpu = busiestSince(cpu0, await rendererCpuTimes(browser)).cpuSeconds;
  const p1 = await page.evaluate(() => performance.now());
  const { times, tops } = await page.evaluate(() => {
    const g = globalThis as unknown as { __wheelFrames: { times: number[]; tops: number[]; on: boolean } };
    g.__wheelFrames.on = false;
    return g.__wheelFrames;
  });
  // From the frame before the first movement to the last frame that moved.
  const first = Math.max(0, tops.findIndex((t) => t !== tops[0]) - 1);
  let last = tops.length - 1;
  while (last > first && tops[last] === tops[last - 1]) last--;
  const intervals: number[] = [];
  for (let i = first + 1; i <= last; i++) intervals.push(times[i] - times[i - 1]);
  return {
    intervals,
    scrolled: Math.abs(tops[last] - tops[0]),
    events,
    cpuPerFrame: (cpu * 1000) / times.filter((t) => t >= p0 && t <= p1).length,
  };
}

/**
 * Chromium's flags for frames as fast as they can be made: no vsync, no 60 a second limit. A
 * frame then comes as soon as the one before it is done, so the time between two is what a frame
 * costs, free of the jitter of waiting for the next vsync (which on a loaded machine lands
 * frames past 16.7 ms on any page, one doing nothing included).
 */
export const UNTHROTTLED_FRAMES = ['--disable-frame-rate-limit', '--disable-gpu-vsync'];

/**
 * In a browser launched with UNTHROTTLED_FRAMES: moves `list`'s content by `delta` px in each of
 * `frames` animation frames (negative: up) and returns the time between frames, ms, while it
 * moved. Each frame does a scroll's whole work: the wheel or scroll event and the rows it
 * renders, style, layout, paint and the compositor's share. The move is a wheel event for a list
 * that takes the wheel itself (one taller than its scrolled space), a scroll by as many px for
 * any other.
 */
export async function frameCosts(list: Locator, frames: number, delta: number): Promise<number[]> {
  // (Runs in the page; the bench is compiled without the DOM's types.)
  return list.evaluate(
    (el, [n, d]) =>
      new Promise<number[]>((resolve) => {
        const g = globalThis as unknown as {
          requestAnimationFrame(cb: () => void): number;
          WheelEvent: new (type: string, init: object) => { defaultPrevented: boolean };
        };
        const times: number[] = [];
        let top = -1;
        const step = () => {
          // The list stopped moving (an end reached): the frames so far are the figure.
          if (times.length > n || el.scrollTop === top) {
            resolve(times.slice(1).map((t, i) => t - times[i]));
            return;
          }
          times.push(performance.now());
          top = el.scrollTop;
          const wheel = new g.WheelEvent('wheel', { deltaY: d, cancelable: true, bubbles: true });
          el.dispatchEvent(wheel as unknown as Event);
          if (!wheel.defaultPrevented) el.scrollTop += d;
          g.requestAnimationFrame(step);
        };
        g.requestAnimationFrame(step);
      }),
    [frames, delta],
  );
}

/**
 * Runs `run` with Chromium tracing on and returns the main-thread CPU time of each frame the
 * busiest page made meanwhile, ms: ProxyMain::BeginMainFrame holds a frame's main-thread work
 * (its input and scroll events, animation frame callbacks, style, layout, paint and the commit),
 * and its thread time leaves out the time other programs had the core, so unlike frame times it
 * does not grow with the machine's load.
 */
export async function mainThreadFrameCpu(browser: Browser, run: () => Promise<void>): Promise<number[]> {
  await browser.startTracing(undefined, { categories: ['cc'] });
  let trace: Buffer;
  try {
    await run();
  } finally {
    trace = await browser.stopTracing();
  }
  const { traceEvents } = JSON.parse(trace.toString('utf8')) as {
    traceEvents: { name: string; ph: string; pid: number; tdur?: number }[];
  };
  const byPage = new Map<number, number[]>();
  for (const e of traceEvents) {
    if (e.name !== 'ProxyMain::BeginMainFrame' || e.ph !== 'X' || e.tdur === undefined) continue;
    const frames = byPage.get(e.pid) ?? [];
    frames.push(e.tdur / 1000);
    byPage.set(e.pid, frames);
  }
  return [...byPage.values()].reduce((a, b) => (b.length > a.length ? b : a), []);
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/**
 * A page of static rows (plain divs, no script) of the log's size on screen: the same wheel on
 * it gives the frame times this machine manages at its present load for any page, the floor
 * the view's own figures are read against.
 */
export async function staticPage(browser: Browser, rows: number): Promise<{ page: Page; list: Locator }> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const html = Array.from(
    { length: rows },
    (_, i) => `<div style="height:18px">2026-01-01T00:00:00.${String(i).padStart(9, '0')}Z ${i + 1}</div>`,
  ).join('');
  await page.setContent(
    `<div role="list" aria-label="Static rows" style="height:700px;overflow:auto;font:12px/18px monospace">${html}</div>`,
  );
  const list = page.getByRole('list', { name: 'Static rows' });
  await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
  return { page, list };
}

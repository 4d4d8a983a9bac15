// The current time for screens that show it moving: `useNow` re-reads it every second (a
// running build's elapsed time); `useClockText` keeps a relative time ("5 s ago", "Up 3
// minutes") current without waking more often than its text can change.
import { useEffect, useRef, useState } from 'react';

export function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return now;
}

/**
 * How often a relative time of this age is re-read: every 5 s in its first minute (it counts
 * seconds), then within a quarter of the minute or of the hour it shows. Not every second: each
 * change of text costs the page a frame (style, layout, paint, raster), and a list of containers
 * just started would draw one a second, 0.8 % of a core for 20 of them, to move a seconds count
 * nobody reads that closely.
 */
export function refreshPeriod(ageMs: number): number {
  if (ageMs < 60_000) return 5000;
  if (ageMs < 3_600_000) return 15_000;
  return 15 * 60_000;
}

/** One timer per period for every text refreshed that often; none once nothing shows one. */
const clocks = new Map<number, { timer: ReturnType<typeof setInterval>; listeners: Set<() => void> }>();

function onTick(period: number, listener: () => void): () => void {
  let clock = clocks.get(period);
  if (!clock) {
    const listeners = new Set<() => void>();
    clock = { listeners, timer: setInterval(() => listeners.forEach((l) => l()), period) };
    clocks.set(period, clock);
  }
  const c = clock;
  c.listeners.add(listener);
  return () => {
    c.listeners.delete(listener);
    if (c.listeners.size) return;
    clearInterval(c.timer);
    clocks.delete(period);
  };
}

/**
 * `text(now)` kept current: re-read on the shared timer for its age (`since`, epoch ms), and
 * rendered again only when it reads differently, so a list of relative times costs nothing
 * while their text stands still.
 */
export function useClockText(text: (now: number) => string, since: number): string {
  const read = useRef(text);
  useEffect(() => {
    read.current = text;
  });
  const [now, setNow] = useState(Date.now);
  const period = refreshPeriod(now - since);
  useEffect(
    () =>
      onTick(period, () => {
        const n = Date.now();
        setNow((old) =>
          read.current(n) === read.current(old) && refreshPeriod(n - since) === period ? old : n,
        );
      }),
    [period, since],
  );
  return text(now);
}

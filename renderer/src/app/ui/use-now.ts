// The current time for screens that show it moving: `useNow` re-reads it every second (a
// running build's elapsed time); `useClockText` keeps a relative time ("5 s ago", "Up 3
// minutes") current on the shared clocks of clock-ticks.ts.
import { useEffect, useRef, useState } from 'react';
import { onClockTick, refreshPeriod } from './clock-ticks';

export function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return now;
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
      onClockTick(period, () => {
        const n = Date.now();
        setNow((old) =>
          read.current(n) === read.current(old) && refreshPeriod(n - since) === period ? old : n,
        );
      }),
    [period, since],
  );
  return text(now);
}

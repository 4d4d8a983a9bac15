// The timers that keep relative times current ("5 s ago", "Up 3 minutes"): one per refresh
// period for all the texts of that age, waking no more often than their text can change, and
// riding along with a screen's own refresh where it has one (readClocksOnBeat).

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

interface Clock {
  period: number;
  timer?: ReturnType<typeof setTimeout>;
  listeners: Set<() => void>;
}
/** One timer per period for every text refreshed that often; none once nothing shows one. */
const clocks = new Map<number, Clock>();

function arm(clock: Clock, delay: number): void {
  clearTimeout(clock.timer);
  clock.timer = setTimeout(() => {
    clock.listeners.forEach((l) => l());
    arm(clock, clock.period);
  }, delay);
}

/** Calls `listener` every `period` ms (or on a beat, readClocksOnBeat) until the returned stop. */
export function onClockTick(period: number, listener: () => void): () => void {
  let clock = clocks.get(period);
  if (!clock) {
    clock = { period, listeners: new Set() };
    clocks.set(period, clock);
    arm(clock, period);
  }
  const c = clock;
  c.listeners.add(listener);
  return () => {
    c.listeners.delete(listener);
    if (c.listeners.size) return;
    clearTimeout(c.timer);
    clocks.delete(period);
  };
}

/** How long past a beat's expected next call the clocks wait before they wake on their own. */
const BEAT_GRACE_MS = 1000;

/**
 * Re-reads every clock now, for a screen that repaints on a beat of its own anyway (the
 * containers list's stats round, every `nextBeatMs`), and holds their timers back until just
 * after its next beat: the times then move in the beat's frame, one frame a beat instead of two.
 * A text that reads the same is not rendered again; once the beats stop, the timers take over.
 */
export function readClocksOnBeat(nextBeatMs: number): void {
  for (const clock of clocks.values()) {
    clock.listeners.forEach((l) => l());
    arm(clock, Math.max(clock.period, nextBeatMs + BEAT_GRACE_MS));
  }
}

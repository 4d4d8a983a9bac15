// Human-readable sizes, times and ids.

export function bytes(n: number | undefined): string {
  if (n === undefined || Number.isNaN(n)) return '—';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v < 10 && i > 0 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

export function ago(epochSeconds: number, now = Date.now()): string {
  // Images built without a creation time carry 0 (1970): say nothing rather than "55 years".
  if (!epochSeconds || epochSeconds < 0) return '—';
  const s = Math.max(0, now / 1000 - epochSeconds);
  if (s < 60) return `${Math.round(s)} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} days ago`;
}

export function shortId(id: string): string {
  return id.replace(/^sha256:/, '').slice(0, 12);
}

export function containerName(names: string[] | undefined, id: string): string {
  return names?.[0]?.replace(/^\//, '') ?? shortId(id);
}

/** A duration worded as the engine words it in a container's status ("About a minute"). */
export function humanDuration(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  const hours = Math.round(seconds / 3600);
  if (seconds < 1) return 'Less than a second';
  if (Math.floor(seconds) === 1) return '1 second';
  if (seconds < 60) return `${Math.floor(seconds)} seconds`;
  if (minutes === 1) return 'About a minute';
  if (minutes < 60) return `${minutes} minutes`;
  if (hours === 1) return 'About an hour';
  if (hours < 48) return `${hours} hours`;
  if (hours < 24 * 14) return `${Math.floor(hours / 24)} days`;
  if (hours < 24 * 60) return `${Math.floor(hours / 24 / 7)} weeks`;
  if (hours < 24 * 730) return `${Math.floor(hours / 24 / 30)} months`;
  return `${Math.floor(hours / 24 / 365)} years`;
}

const UNIT: Record<string, number> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86400,
  week: 604800,
  month: 2592000,
  year: 31536000,
};

/** The seconds a worded duration stands for (the inverse of humanDuration, to its precision). */
function durationSeconds(text: string): number | undefined {
  if (text === 'Less than a second') return 0;
  if (text === 'About a minute') return 60;
  if (text === 'About an hour') return 3600;
  const m = /^(\d+) (second|minute|hour|day|week|month|year)s?$/.exec(text);
  return m ? Number(m[1]) * UNIT[m[2]] : undefined;
}

/**
 * A container's status as fetched at `fetchedAt` ("Exited (0) 3 seconds ago", "Up 2 minutes
 * (Paused)"), advanced to `now`: the list is refreshed by events, not by the clock.
 */
export function statusAt(status: string, fetchedAt: number, now: number): string {
  const s = parseStatus(status);
  if (!s) return status;
  return `${s.state} ${humanDuration(s.seconds + Math.max(0, now - fetchedAt) / 1000)}${s.rest}`;
}

/** When the state a status words began (epoch ms), for a status fetched at `fetchedAt`. */
export function statusSince(status: string, fetchedAt: number): number {
  return fetchedAt - (parseStatus(status)?.seconds ?? 0) * 1000;
}

function parseStatus(status: string): { state: string; seconds: number; rest: string } | undefined {
  const m = /^(Up|Exited \(-?\d+\)|Restarting \(-?\d+\)) (.+?)( ago)?( \(.+\))?$/.exec(status);
  const seconds = m ? durationSeconds(m[2]) : undefined;
  if (!m || seconds === undefined) return undefined;
  return { state: m[1], seconds, rest: `${m[3] ?? ''}${m[4] ?? ''}` };
}

/** A count with its noun, singular for one: "1 layer", "3 layers", "2 entries". */
export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? noun : nouns}`;
}

/**
 * An engine timestamp (RFC 3339 with nanoseconds) as a local date and time with how long ago it
 * was; Go's zero time (never happened) as "never".
 */
export function when(rfc3339: string | undefined, now = Date.now()): string {
  if (!rfc3339 || rfc3339.startsWith('0001-01-01')) return 'never';
  const ms = Date.parse(rfc3339);
  if (Number.isNaN(ms)) return rfc3339;
  return `${new Date(ms).toLocaleString()} (${ago(ms / 1000, now)})`;
}

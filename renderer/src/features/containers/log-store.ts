// The lines a logs view has loaded, outside React state: appended as they stream in, older pages
// put in front, each with the stream it came on and the engine's timestamp, which the view shows
// or hides without asking the engine again and which bounds the next page back (`until`).

/** The engine's RFC 3339 timestamp in front of a line when asked for `timestamps`. */
const STAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?Z /;

export class LogStore {
  texts: string[] = [];
  /** true where the line came on stderr. */
  stderr: boolean[] = [];
  private partial = { stdout: '', stderr: '' };

  get count(): number {
    return this.texts.length;
  }

  /** Adds streamed text; a line is added once its end arrives (a TTY ends lines with CRLF). */
  append(stream: 'stdout' | 'stderr', text: string): void {
    const parts = (this.partial[stream] + text).split(/\r?\n/);
    this.partial[stream] = parts.pop() ?? '';
    for (const p of parts) {
      this.texts.push(p);
      this.stderr.push(stream === 'stderr');
    }
  }

  /**
   * Puts an older page in front. `until` is inclusive, so the page ends with the lines already
   * loaded that share the first line's timestamp; those are left out. Returns how many were added.
   */
  prepend(older: LogStore): number {
    const first = this.texts.length ? stampOf(this.texts[0]) : undefined;
    let same = 0;
    while (first && same < this.texts.length && stampOf(this.texts[same]) === first) same++;
    let keep = older.texts.length;
    for (let n = 0; n < same && keep > 0 && stampOf(older.texts[keep - 1]) === first; n++) keep--;
    this.texts = older.texts.slice(0, keep).concat(this.texts);
    this.stderr = older.stderr.slice(0, keep).concat(this.stderr);
    return keep;
  }

  /**
   * The engine's time of line `i` in nanoseconds since the epoch. Docker and svcd always write
   * nine digits of fraction; Podman's stamps are whole seconds, and one stands for any time in
   * its second: its last nanosecond, so a page back `until` it holds all that second's lines.
   */
  timeOf(i: number): bigint | undefined {
    const m = i < this.texts.length ? STAMP.exec(this.texts[i]) : null;
    if (!m) return undefined;
    const fraction = m[2] === undefined ? 999_999_999n : BigInt(m[2].padEnd(9, '0').slice(0, 9));
    return BigInt(Date.parse(`${m[1]}Z`)) * MS + fraction;
  }

  /**
   * The window of the next page back: from `since` to the first line's time, wide enough for
   * about `lines` lines at the rate the loaded lines came, never before `floor` (the container's
   * creation, before which it has no log). The engine applies `tail` before since/until, as
   * Docker does, so a page back is a time window, not a line count. With nothing loaded (one
   * stream shown, and the last lines all on the other) the window ends at `now`.
   */
  olderWindow(
    lines: number,
    floor: bigint,
    widen: bigint,
    now: bigint,
  ): { since: bigint; until: bigint } | undefined {
    const first = this.timeOf(0) ?? now;
    if (first <= floor) return undefined;
    const span = (this.timeOf(this.count - 1) ?? first) - first;
    const width = ((span * BigInt(lines)) / BigInt(Math.max(1, this.count)) + MS) * widen;
    const since = first - width;
    return { since: since < floor ? floor : since, until: first };
  }
}

export const MS = 1_000_000n;

/** Nanoseconds as the API's since/until: seconds since the epoch with a nine-digit fraction. */
export function apiTime(ns: bigint): string {
  return `${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, '0')}`;
}

function stampOf(line: string): string | undefined {
  return STAMP.exec(line)?.[0];
}

/** The line as shown: with or without its timestamp. */
export function shownText(line: string, timestamps: boolean): string {
  return timestamps ? line : line.replace(STAMP, '');
}

/**
 * Lines containing the search text, found incrementally: lines appended since the last call are
 * the only ones read, so following a log while searching costs what the new lines cost.
 */
export class MatchIndex {
  private needle = '';
  private texts: string[] = [];
  private scanned = 0;
  matches: number[] = [];

  update(texts: string[], needle: string, timestamps: boolean): number[] {
    const key = `${timestamps ? 1 : 0}${needle.toLowerCase()}`;
    if (key !== this.needle || texts !== this.texts || texts.length < this.scanned) {
      this.needle = key;
      this.texts = texts;
      this.scanned = 0;
      this.matches = [];
    }
    const n = needle.toLowerCase();
    if (!n) return this.matches;
    for (; this.scanned < texts.length; this.scanned++) {
      if (shownText(texts[this.scanned], timestamps).toLowerCase().includes(n))
        this.matches.push(this.scanned);
    }
    return this.matches;
  }
}

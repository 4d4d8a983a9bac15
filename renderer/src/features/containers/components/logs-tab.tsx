// Logs without a cap: lines live outside React state and only the visible rows render; follow
// appends in animation frames; older pages load in front (a since/until window ending at the
// first line's time);
// search jumps between matches; download streams the full log through the gateway.
import { useCallback, useEffect, useRef, useState } from 'react';
import { engine } from '../../../api/engine-client';
import { readChunks } from '../../../api/stdcopy';
import { ErrorMessage } from '../../../app/ui/error-message';
import { plural } from '../../../app/ui/format';
import { VirtualList } from '../../../app/ui/virtual-list';
import { apiTime, LogStore, MatchIndex, MS, shownText } from '../log-store';
import './containers.css';

const ROW = 18;
const TAILS = ['1000', '10000', '100000', 'all'];
/**
 * A longer tail loads in two steps: its last lines first, which fill the screen at once, then the
 * rest before them (all lines up to the first one shown), put in front when it has arrived.
 */
const FIRST_WINDOW = 1000;
/** About how many lines a page back from the first loaded line brings. */
const PAGE = 10_000;
/** A time window narrows what is loaded before any line limit applies (seconds back; 0 = all). */
const WINDOWS: [number, string][] = [
  [0, 'any time'],
  [300, 'the last 5 minutes'],
  [3600, 'the last hour'],
  [86400, 'the last day'],
];

/** Which streams the engine sends: both, or one of them. */
const STREAMS: [string, string][] = [
  ['both', 'stdout and stderr'],
  ['stdout', 'stdout only'],
  ['stderr', 'stderr only'],
];

export function LogsTab({ id, tty, created }: { id: string; tty: boolean; created: string }) {
  const [tail, setTail] = useState('1000');
  const [windowS, setWindowS] = useState(0);
  const [follow, setFollow] = useState(true);
  const [timestamps, setTimestamps] = useState(true);
  const [streams, setStreams] = useState('both');
  const [search, setSearch] = useState('');
  const [matchIndex, setMatchIndex] = useState(0);
  const [error, setError] = useState<unknown>();
  /** A page back came short: the first line loaded is the log's first. */
  const [exhausted, setExhausted] = useState(false);
  const [loadingOlder, setLoadingOlder] = useState(false);
  /** The rest of a long tail is on its way (the last lines are shown). */
  const [loadingRest, setLoadingRest] = useState(false);
  /** Lines put in front so far: the list keeps its place when it grows there. */
  const [prepended, setPrepended] = useState(0);
  /** A page back brought lines: there may be more before them. */
  const [pagedBack, setPagedBack] = useState(false);
  const store = useRef(new LogStore());
  const index = useRef(new MatchIndex());
  const [, setVersion] = useState(0);
  // The engine is always asked for timestamps: they bound the next page back, and the toggle
  // only changes what is shown.
  const request = useCallback(
    (opts: { tail: string; follow: boolean; since?: string; until?: string }, signal: AbortSignal) =>
      engine.logs(
        id,
        {
          since: windowS ? Math.floor(Date.now() / 1000) - windowS : undefined,
          ...opts,
          timestamps: true,
          stdout: streams !== 'stderr',
          stderr: streams !== 'stdout',
        },
        signal,
      ),
    [id, windowS, streams],
  );

  useEffect(() => {
    store.current = new LogStore();
    setPrepended(0);
    setPagedBack(false);
    setExhausted(false);
    setLoadingRest(false);
    setVersion((v) => v + 1);
    setError(undefined);
    const abort = new AbortController();
    let frame = 0;
    const flush = () => {
      frame = 0;
      setVersion((v) => v + 1);
    };
    const lines = store.current;
    const failed = (err: unknown) => {
      if ((err as Error).name !== 'AbortError') setError(err);
    };
    const twoSteps = tail === 'all' || Number(tail) > FIRST_WINDOW;
    // The lines up to the first one shown (`until` is inclusive: prepend drops what both have).
    // The engine applies a tail before `until`, so the same tail asked again ends where the
    // first step began.
    const loadRest = async (until: bigint) => {
      setLoadingRest(true);
      const page = new LogStore();
      const res = await request({ tail, follow: false, until: apiTime(until) }, abort.signal);
      await readChunks(res, tty, (stream, t) => page.append(stream, t));
      if (store.current !== lines) return;
      const added = lines.prepend(page);
      setPrepended((n) => n + added);
      setVersion((v) => v + 1);
      setLoadingRest(false);
    };
    let restAsked = false;
    request({ tail: twoSteps ? String(FIRST_WINDOW) : tail, follow: true }, abort.signal)
      .then((res) =>
        readChunks(res, tty, (stream, t) => {
          lines.append(stream, t);
          const first = lines.timeOf(0);
          if (twoSteps && !restAsked && first !== undefined) {
            restAsked = true;
            loadRest(first).catch(failed);
          }
          if (!frame) frame = requestAnimationFrame(flush);
        }),
      )
      .catch(failed);
    return () => {
      abort.abort();
      cancelAnimationFrame(frame);
    };
  }, [request, tail, tty]);

  const loadOlder = useCallback(async () => {
    const lines = store.current;
    if (loadingOlder) return;
    setLoadingOlder(true);
    try {
      // Nothing is older than the container, or than the chosen time window.
      const floor = BigInt(Math.max(Date.parse(created), windowS ? Date.now() - windowS * 1000 : 0)) * MS;
      const now = BigInt(Date.now()) * MS;
      let added = 0;
      let reached = false;
      // A window with nothing in it is widened until it finds lines or reaches the floor.
      for (let widen = 1n; !added && !reached; widen *= 8n) {
        const range = lines.olderWindow(PAGE, floor, widen, now);
        if (!range) break;
        const page = new LogStore();
        const res = await request(
          { tail: 'all', follow: false, since: apiTime(range.since), until: apiTime(range.until) },
          new AbortController().signal,
        );
        await readChunks(res, tty, (stream, t) => page.append(stream, t));
        if (store.current !== lines) return;
        added = lines.prepend(page);
        reached = range.since === floor;
      }
      setExhausted(reached || !added);
      setPagedBack((p) => p || added > 0);
      setPrepended((n) => n + added);
      setVersion((v) => v + 1);
    } catch (err) {
      setError(err);
    } finally {
      setLoadingOlder(false);
    }
  }, [request, tty, loadingOlder, created, windowS]);

  // Read on every render (each batch of lines renders once); only new lines are searched.
  const matches = index.current.update(store.current.texts, search, timestamps);

  const download = () => {
    const a = document.createElement('a');
    a.href = engine.logFileUrl(id, timestamps);
    a.download = '';
    a.click();
  };

  const jump = (d: number) =>
    matches.length && setMatchIndex((i) => (i + d + matches.length) % matches.length);
  const count = store.current.count;
  const target = matches.length ? matches[Math.min(matchIndex, matches.length - 1)] : undefined;
  // The engine counts the tail over both streams before it leaves one out, so with one stream
  // shown fewer lines than the tail say nothing about older ones.
  const hasOlder =
    tail !== 'all' &&
    !loadingRest &&
    !exhausted &&
    (pagedBack || count >= Number(tail) || streams !== 'both');

  return (
    <div className="logs">
      <div className="toolbar">
        <label>
          Last{' '}
          <select value={tail} onChange={(e) => setTail(e.target.value)} aria-label="Lines to load">
            {TAILS.map((t) => (
              <option key={t} value={t}>
                {t === 'all' ? 'all lines' : `${Number(t).toLocaleString()} lines`}
              </option>
            ))}
          </select>
        </label>
        <label>
          from{' '}
          <select
            value={windowS}
            onChange={(e) => setWindowS(Number(e.target.value))}
            aria-label="Time window"
          >
            {WINDOWS.map(([s, label]) => (
              <option key={s} value={s}>
                {label}
              </option>
            ))}
          </select>
        </label>
        {tty ? null : (
          <select value={streams} onChange={(e) => setStreams(e.target.value)} aria-label="Streams">
            {STREAMS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        )}
        <label>
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow
        </label>
        <label>
          <input type="checkbox" checked={timestamps} onChange={(e) => setTimestamps(e.target.checked)} />{' '}
          Timestamps
        </label>
        <input
          type="search"
          placeholder="Search logs"
          aria-label="Search logs"
          value={search}
          onChange={(e) => (setSearch(e.target.value), setMatchIndex(0), setFollow(false))}
          onKeyDown={(e) => e.key === 'Enter' && jump(e.shiftKey ? -1 : 1)}
        />
        <button onClick={() => jump(-1)} disabled={!matches.length} aria-label="Previous match">
          ↑
        </button>
        <button onClick={() => jump(1)} disabled={!matches.length} aria-label="Next match">
          ↓
        </button>
        <span className="muted" data-testid="log-status">
          {search
            ? `${matches.length ? matchIndex + 1 : 0} of ${plural(matches.length, 'match', 'matches')} · `
            : ''}
          {plural(count, 'line')} loaded
          {hasOlder ? ' (older lines not loaded yet)' : ''}
          {loadingRest ? ' (loading the lines before them…)' : ''}
        </span>
        {hasOlder ? (
          <button onClick={() => void loadOlder()} disabled={loadingOlder}>
            {loadingOlder ? 'Loading…' : 'Load older lines'}
          </button>
        ) : null}
        <span className="spacer" />
        <button onClick={download}>Download full log</button>
      </div>
      <ErrorMessage error={error} context="Logs" />
      <VirtualList
        label="Log lines"
        className="log-lines"
        count={count}
        rowHeight={ROW}
        follow={follow}
        prepended={prepended}
        recycle
        scrollToIndex={follow ? undefined : target}
        onUserScroll={(atEnd, atTop) => {
          if (!atEnd && follow) setFollow(false);
          // Paging backwards: reaching the top brings the page before it.
          if (atTop && hasOlder) void loadOlder();
        }}
        renderRow={(i) => (
          <LogLine
            text={shownText(store.current.texts[i], timestamps)}
            search={search}
            current={i === target}
            stderr={store.current.stderr[i]}
          />
        )}
      />
    </div>
  );
}

function LogLine(props: { text: string; search: string; current: boolean; stderr: boolean }) {
  const { text, search, current, stderr } = props;
  const at = search ? text.toLowerCase().indexOf(search.toLowerCase()) : -1;
  // stderr lines carry a marker and a tint, so errors stand out from ordinary output.
  const stream = stderr ? { 'data-stream': 'stderr', title: 'stderr' } : {};
  if (at < 0)
    return (
      <span className={`line${stderr ? ' stderr' : ''}`} {...stream}>
        {text}
      </span>
    );
  return (
    <span className={`line ${current ? 'current' : ''}${stderr ? ' stderr' : ''}`} {...stream}>
      {text.slice(0, at)}
      <mark>{text.slice(at, at + search.length)}</mark>
      {text.slice(at + search.length)}
    </span>
  );
}

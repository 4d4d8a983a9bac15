// Logs without a cap: lines live outside React state and only the visible rows render; follow
// appends in animation frames; search jumps between matches; download fetches the full log.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { engine } from '../../../api/engine-client';
import { demuxer } from '../../../api/stdcopy';
import { ErrorMessage } from '../../../app/error-message';
import { plural } from '../../../app/format';
import { saveFile } from '../../../app/save-file';
import { VirtualList } from '../../../app/virtual-list';

const ROW = 18;
const TAILS = ['1000', '10000', '100000', 'all'];
/** A time window narrows what is loaded before any line limit applies (seconds back; 0 = all). */
const WINDOWS: [number, string][] = [
  [0, 'any time'],
  [300, 'the last 5 minutes'],
  [3600, 'the last hour'],
  [86400, 'the last day'],
];

type Stream = 'stdout' | 'stderr';
/** Which streams the engine sends: both, or one of them. */
const STREAMS: [string, string][] = [
  ['both', 'stdout and stderr'],
  ['stdout', 'stdout only'],
  ['stderr', 'stderr only'],
];

/** Each chunk's text with the stream it came on (a TTY has one stream, shown as stdout). */
async function readChunks(
  res: Response,
  tty: boolean,
  onText: (stream: Stream, text: string) => void,
): Promise<void> {
  const demux = demuxer(tty);
  const decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
  const reader = res.body!.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    for (const c of demux(value)) {
      const stream = c.stream === 'stderr' ? 'stderr' : 'stdout';
      onText(stream, decoders[stream].decode(c.data, { stream: true }));
    }
  }
}

export function LogsTab({ id, tty }: { id: string; tty: boolean }) {
  const [tail, setTail] = useState('1000');
  const [windowS, setWindowS] = useState(0);
  const [follow, setFollow] = useState(true);
  const [timestamps, setTimestamps] = useState(true);
  const [streams, setStreams] = useState('both');
  const [search, setSearch] = useState('');
  const [matchIndex, setMatchIndex] = useState(0);
  const [error, setError] = useState<unknown>();
  const [downloading, setDownloading] = useState(false);
  const lines = useRef<string[]>([]);
  /** Which lines came on stderr, by index. */
  const errLines = useRef(new Set<number>());
  const partial = useRef<Record<Stream, string>>({ stdout: '', stderr: '' });
  const [version, setVersion] = useState(0);

  useEffect(() => {
    lines.current = [];
    errLines.current = new Set();
    partial.current = { stdout: '', stderr: '' };
    setVersion((v) => v + 1);
    setError(undefined);
    const abort = new AbortController();
    let frame = 0;
    const flush = () => {
      frame = 0;
      setVersion((v) => v + 1);
    };
    engine
      .logs(
        id,
        {
          tail,
          follow: true,
          timestamps,
          since: windowS ? Math.floor(Date.now() / 1000) - windowS : undefined,
          stdout: streams !== 'stderr',
          stderr: streams !== 'stdout',
        },
        abort.signal,
      )
      .then((res) =>
        readChunks(res, tty, (stream, t) => {
          // A TTY's output ends lines with CRLF.
          const parts = (partial.current[stream] + t).split(/\r?\n/);
          partial.current[stream] = parts.pop() ?? '';
          for (const p of parts) {
            if (stream === 'stderr') errLines.current.add(lines.current.length);
            lines.current.push(p);
          }
          if (!frame) frame = requestAnimationFrame(flush);
        }),
      )
      .catch((err: unknown) => {
        if ((err as Error).name !== 'AbortError') setError(err);
      });
    return () => {
      abort.abort();
      cancelAnimationFrame(frame);
    };
  }, [id, tail, timestamps, tty, windowS, streams]);

  const matches = useMemo(() => {
    if (!search) return [];
    const needle = search.toLowerCase();
    const out: number[] = [];
    lines.current.forEach((l, i) => l.toLowerCase().includes(needle) && out.push(i));
    return out;
    // `version` says the lines changed.
  }, [search, version]);

  const download = useCallback(async () => {
    setDownloading(true);
    try {
      const res = await engine.logs(
        id,
        { tail: 'all', follow: false, timestamps },
        new AbortController().signal,
      );
      const demux = demuxer(tty);
      const parts: BlobPart[] = [];
      const reader = res.body!.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        for (const c of demux(r.value)) parts.push(c.data as BlobPart);
      }
      saveFile(parts, `${id.slice(0, 12)}.log`, 'text/plain');
    } catch (err) {
      setError(err);
    } finally {
      setDownloading(false);
    }
  }, [id, tty, timestamps]);

  const jump = (d: number) =>
    matches.length && setMatchIndex((i) => (i + d + matches.length) % matches.length);
  const count = lines.current.length;
  const target = matches.length ? matches[Math.min(matchIndex, matches.length - 1)] : undefined;

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
        <span className="muted">
          {search ? `${matches.length ? matchIndex + 1 : 0} of ${matches.length} matches · ` : ''}
          {plural(count, 'line')} loaded
          {tail !== 'all' && count >= Number(tail)
            ? ` (the last ${Number(tail).toLocaleString()}; older lines not loaded)`
            : ''}
        </span>
        {tail !== 'all' && count >= Number(tail) ? (
          <button onClick={() => setTail('all')}>Load all</button>
        ) : null}
        <span className="spacer" />
        <button onClick={download} disabled={downloading}>
          {downloading ? 'Downloading…' : 'Download full log'}
        </button>
      </div>
      <ErrorMessage error={error} context="Logs" />
      <VirtualList
        label="Log lines"
        className="log-lines"
        count={count}
        rowHeight={ROW}
        follow={follow}
        scrollToIndex={follow ? undefined : target}
        onUserScroll={(atEnd) => !atEnd && follow && setFollow(false)}
        renderRow={(i) => (
          <LogLine
            text={lines.current[i]}
            search={search}
            current={i === target}
            stderr={errLines.current.has(i)}
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

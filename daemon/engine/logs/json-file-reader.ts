// The json-file log driver's reading half: since/until, tail from the end across rotated files,
// and follow as the file grows and rotates, streaming with bounded memory.
import { watch, type FSWatcher } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { LineSplitter } from '../../lib/json-lines';
import { fixedTimestamp, formatTimestamp, nowNanos } from './log-time';
import { rotatedLogPath, type LogSource } from './json-file-writer';

export interface LogMessage {
  source: LogSource;
  /** The text as logged: with its "\n", or without one for a partial line. */
  line: string;
  /** RFC 3339 UTC with nine fraction digits, as the API prints it with timestamps=1. */
  time: string;
  attrs?: Record<string, string>;
}

export interface ReadLogsOptions {
  /** Nanoseconds since the epoch; earlier lines are skipped (0 or undefined: no bound). */
  since?: bigint;
  /** Nanoseconds since the epoch; reading ends at the first later line. */
  until?: bigint;
  /** Only the last N lines of what is already written; undefined or negative: all. */
  tail?: number;
  /** Keep reading what is written after the existing lines. */
  follow?: boolean;
  /** Following ends once this is aborted (the container stopped) and what was written is read. */
  stopped?: AbortSignal;
  /** Ends reading at once (the client went away). */
  signal?: AbortSignal;
  /** Rotated files to look for (<path>.1 … <path>.maxFile-1); more are found if present. */
  maxFile?: number;
  /** Where to begin instead of the oldest file's start. */
  from?: LogStart;
}

/** A place in the log: an offset in the file with this inode (-1: none, read everything). */
export interface LogStart {
  ino: number;
  offset: number;
}

const blockSize = 256 * 1024;
const pollMs = 1000;

interface RawEntry {
  log?: unknown;
  stream?: unknown;
  time?: unknown;
  attrs?: unknown;
}

/** An open file and where reading starts in it. */
interface Segment {
  file: FileHandle;
  start: number;
  ino: number;
}

/**
 * Opens the log files, returned oldest first: <path>.N … <path>.1, <path>. Names are opened newest
 * first while a rotation may be shifting them: each file only ever moves to a higher index, so
 * scanning upwards meets every file at least once (duplicates are dropped by inode).
 */
async function openLogFiles(path: string, maxFile: number): Promise<Segment[]> {
  const segments: Segment[] = [];
  for (let i = 0; ; i++) {
    const file = await open(rotatedLogPath(path, i), 'r').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (!file) {
      if (i >= maxFile - 1 && i > 0) break;
      continue;
    }
    const { ino } = await file.stat();
    if (segments.some((s) => s.ino === ino)) await file.close();
    else segments.push({ file, start: 0, ino });
  }
  return segments.reverse();
}

/**
 * After <path> was rotated away from the file with inode `ino`: the files written since, oldest
 * first. Rotation drops the oldest files first, so if ours is gone every file left is newer;
 * several rotations between two looks at the directory lose nothing that is still on disk.
 */
async function newerFiles(path: string, maxFile: number, ino: number): Promise<Segment[]> {
  const all = await openLogFiles(path, maxFile);
  const newer = all.slice(all.findIndex((s) => s.ino === ino) + 1);
  for (const s of all) if (!newer.includes(s)) await s.file.close();
  return newer;
}

/**
 * Moves the segments' start so that only the last `count` complete lines remain, reading blocks
 * backwards from the end: cost is proportional to what is kept, not to the file size.
 */
async function applyTail(segments: Segment[], count: number): Promise<Segment[]> {
  let remaining = count;
  const buf = Buffer.allocUnsafe(blockSize);
  for (let s = segments.length - 1; s >= 0; s--) {
    const seg = segments[s];
    let pos = (await seg.file.stat()).size;
    let seenEnd = false;
    while (pos > 0) {
      const len = Math.min(blockSize, pos);
      pos -= len;
      await readFully(seg.file, buf, len, pos);
      for (let i = len - 1; i >= 0; i--) {
        if (buf[i] !== 0x0a) continue;
        // The newline ending the file's last line only marks it complete.
        if (!seenEnd) {
          seenEnd = true;
          if (remaining === 0) {
            seg.start = pos + i + 1;
            return segments.slice(s);
          }
          continue;
        }
        remaining--;
        if (remaining === 0) {
          seg.start = pos + i + 1;
          return segments.slice(s);
        }
      }
    }
    if (seenEnd) remaining--;
    if (remaining <= 0) return segments.slice(s);
  }
  return segments;
}

async function readFully(file: FileHandle, buf: Buffer, len: number, position: number): Promise<void> {
  let off = 0;
  while (off < len) {
    const { bytesRead } = await file.read(buf, off, len - off, position + off);
    if (bytesRead === 0) throw new Error('log file shrank while reading it');
    off += bytesRead;
  }
}

/**
 * An entry of exactly the shape svcd and Docker write, `{"log":"…","stream":"stdout|stderr",
 * "time":"…"}`, read without a general JSON parse (most of the cost of reading logs). Inside an
 * encoded string every quote is escaped, so the first `","stream":"` ends the log text.
 */
function fastEntry(entry: string): LogMessage | undefined {
  if (!entry.startsWith('{"log":"') || !entry.endsWith('"}')) return undefined;
  const logEnd = entry.indexOf('","stream":"std', 8);
  if (logEnd < 0) return undefined;
  const kind = entry.slice(logEnd + 15, logEnd + 28);
  const source = kind === 'out","time":"' ? 'stdout' : kind === 'err","time":"' ? 'stderr' : undefined;
  if (!source) return undefined;
  const text = entry.slice(8, logEnd);
  const line = text.includes('\\') ? (JSON.parse(`"${text}"`) as string) : text;
  return { source, line, time: fixedTimestamp(entry.slice(logEnd + 28, -2)) };
}

function toMessage(raw: RawEntry): LogMessage | undefined {
  if (typeof raw.log !== 'string' || typeof raw.time !== 'string') return undefined;
  const source: LogSource = raw.stream === 'stderr' ? 'stderr' : 'stdout';
  const msg: LogMessage = { source, line: raw.log, time: fixedTimestamp(raw.time) };
  if (raw.attrs && typeof raw.attrs === 'object') msg.attrs = raw.attrs as Record<string, string>;
  return msg;
}

/** Wakes a follower when the log directory changes, with a slow poll as a safety net. */
class ChangeWaiter {
  private watcher: FSWatcher | undefined;
  private wake: (() => void) | undefined;
  private changed = false;

  constructor(path: string) {
    const name = basename(path);
    try {
      this.watcher = watch(dirname(path), { persistent: false }, (_event, file) => {
        if (file === null || String(file).startsWith(name)) this.notify();
      });
      this.watcher.on('error', () => this.close());
    } catch {
      this.watcher = undefined;
    }
  }

  notify(): void {
    this.changed = true;
    this.wake?.();
  }

  /** Resolves on a change seen since the last call, a poll tick, or an abort. */
  async wait(signals: AbortSignal[]): Promise<void> {
    if (this.changed) {
      this.changed = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, pollMs);
      function done() {
        clearTimeout(timer);
        for (const s of signals) s.removeEventListener('abort', done);
        resolve();
      }
      this.wake = done;
      for (const s of signals) {
        if (s.aborted) return done();
        s.addEventListener('abort', done);
      }
    });
    this.wake = undefined;
    this.changed = false;
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }
}

/**
 * Reads a json-file log (with its rotated files), one message at a time. Lines that are not valid
 * entries are skipped, as is an unterminated last line (an entry still being written); following
 * picks it up once complete.
 */
export async function* readJsonFileLogs(
  path: string,
  options: ReadLogsOptions = {},
): AsyncGenerator<LogMessage> {
  for await (const batch of readJsonFileLogBatches(path, options)) yield* batch;
}

/**
 * The same messages in the batches they were read in (up to 256 KiB of file each), so a writer
 * to a socket can send a batch at once: per-message async steps would cost more than the parsing.
 */
export async function* readJsonFileLogBatches(
  path: string,
  options: ReadLogsOptions = {},
): AsyncGenerator<LogMessage[]> {
  const since = options.since ? formatTimestamp(options.since, true) : undefined;
  const until = options.until ? formatTimestamp(options.until, true) : undefined;
  const signal = options.signal;
  // Watch before reading so nothing written in between is missed.
  const waiter = options.follow ? new ChangeWaiter(path) : undefined;
  let segments = await openLogFiles(path, options.maxFile ?? 1);
  let current: FileHandle | undefined;
  let pending: Segment[] = [];
  try {
    const from = options.from;
    const first = from ? segments.findIndex((s) => s.ino === from.ino) : -1;
    if (from && first >= 0) {
      for (const s of segments.slice(0, first)) await s.file.close();
      segments = segments.slice(first);
      segments[0].start = from.offset;
    }
    const tail = options.tail ?? -1;
    if (tail >= 0) {
      const kept = await applyTail(segments, tail);
      for (const s of segments) if (!kept.includes(s)) await s.file.close();
      segments = kept;
      if (tail === 0) for (const s of segments) s.start = (await s.file.stat()).size;
    }
    const buf = Buffer.allocUnsafe(blockSize);
    let ended = false;
    /** Reads one file from `pos` to its current end; returns the new position. */
    const readSegment = async function* (file: FileHandle, pos: number, splitter: LineSplitter) {
      for (;;) {
        if (signal?.aborted) return pos;
        const { bytesRead } = await file.read(buf, 0, blockSize, pos);
        if (bytesRead === 0) return pos;
        pos += bytesRead;
        const batch: LogMessage[] = [];
        splitter.push(buf.subarray(0, bytesRead), (b, s, e) => {
          let msg: LogMessage | undefined;
          try {
            const entry = b.toString('utf8', s, e);
            msg = fastEntry(entry) ?? toMessage(JSON.parse(entry) as RawEntry);
          } catch {
            msg = undefined;
          }
          if (msg) batch.push(msg);
        });
        let kept = batch;
        if (since !== undefined) kept = kept.filter((m) => m.time >= since);
        if (until !== undefined) {
          const after = kept.findIndex((m) => m.time > until);
          if (after >= 0) {
            ended = true;
            if (after > 0) yield kept.slice(0, after);
            return pos;
          }
        }
        if (kept.length > 0) yield kept;
      }
    };

    let pos = 0;
    let splitter = new LineSplitter();
    for (const seg of segments) {
      await current?.close();
      current = seg.file;
      splitter = new LineSplitter();
      pos = yield* readSegment(current, seg.start, splitter);
      if (ended || signal?.aborted) return;
    }
    if (!waiter || (options.until !== undefined && options.until < nowNanos())) return;

    // Follow: read the current file as it grows; when <path> is a new file (rotated), finish the
    // old one and continue in the new one; when it shrank (max-file 1 truncates), start over.
    const signals = [options.stopped, signal].filter((s): s is AbortSignal => s !== undefined);
    for (;;) {
      const stopping = options.stopped?.aborted === true;
      if (!current) {
        current = pending.shift()?.file ?? (await open(path, 'r').catch(() => undefined));
        pos = 0;
        splitter = new LineSplitter();
      }
      if (current) {
        pos = yield* readSegment(current, pos, splitter);
        if (ended || signal?.aborted) return;
        if (pending.length > 0) {
          // A rotated file between the one we followed and the live one: complete, move on.
          await current.close();
          current = undefined;
          continue;
        }
        const [mine, named] = await Promise.all([current.stat(), stat(path).catch(() => undefined)]);
        if (named && named.ino !== mine.ino) {
          pos = yield* readSegment(current, pos, splitter);
          if (ended || signal?.aborted) return;
          pending = await newerFiles(path, options.maxFile ?? 1, mine.ino);
          await current.close();
          current = undefined;
          continue;
        }
        if (mine.size < pos) {
          pos = 0;
          splitter = new LineSplitter();
          continue;
        }
      }
      if (stopping) return;
      await waiter.wait(signals);
    }
  } finally {
    waiter?.close();
    // Closing a FileHandle twice is harmless; every one opened here is closed.
    for (const s of [...segments, ...pending]) await s.file.close().catch(() => undefined);
    await current?.close().catch(() => undefined);
  }
}

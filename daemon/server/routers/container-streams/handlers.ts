import type { Writable } from 'node:stream';
import { InvalidParameterError } from '../../../api/errors';
import { supports, type ApiVersion } from '../../../api/versions';
import type { Query } from '../../http/query';
import { parseTimestampNano } from '../../http/timestamps';
import type { Handler } from '../../router';
import { parseDetachKeys } from '../../streams/detach-keys';
import { hijack, untilHeadRead } from '../../streams/hijack';
import { StreamMultiplexer } from '../../streams/stdcopy';
import { EarlyOutput, serveSession, type StdioSession } from '../../streams/stdio-session';
import { acceptWebSocket, isWebSocketHandshake } from '../../streams/websocket';
import type { ContainerStreamsBackend } from './backend';
import { encodeLogBatch } from '../../streams/log-frames';
import { parseTail, serveLogStream } from '../../streams/log-stream';
import { whenDrained } from '../../../lib/when-drained';

/** Writes a container's existing log onto the stream (attach with logs=1). */
async function replayLogs(
  b: ContainerStreamsBackend,
  ref: string,
  query: Query,
  out: Writable,
  framed: boolean,
  signal: AbortSignal,
): Promise<void> {
  const stdout = query.bool('stdout');
  const stderr = query.bool('stderr');
  if (!query.bool('logs') || (!stdout && !stderr)) return;
  let logs;
  try {
    logs = b.logs(ref, { stdout, stderr, follow: false, signal });
  } catch {
    // A container logging to `none` has no past output to show; attaching goes on.
    return;
  }
  for await (const batch of logs.batches) {
    if (!out.write(encodeLogBatch(batch, framed))) await whenDrained(out, { signal });
  }
}

function attachRequest(query: Query, version: ApiVersion) {
  return {
    stdin: query.bool('stdin'),
    stdout: query.bool('stdout'),
    stderr: query.bool('stderr'),
    refusePaused: supports(version, 'pausedConflict'),
  };
}

export function containerStreamsHandlers(b: ContainerStreamsBackend): Record<string, Handler> {
  return {
    logs: async ({ req, res, params, query, version, signal }) => {
      const gone = new AbortController();
      signal.addEventListener('abort', () => gone.abort(), { once: true });
      const logs = b.logs(params.id, {
        stdout: query.bool('stdout'),
        stderr: query.bool('stderr'),
        since: parseTimestampNano('since', query.string('since')) || undefined,
        until: supports(version, 'logsUntil')
          ? parseTimestampNano('until', query.string('until')) || undefined
          : undefined,
        tail: parseTail(query.string('tail')),
        follow: query.bool('follow'),
        timestamps: query.bool('timestamps'),
        details: supports(version, 'logsDetails') && query.bool('details'),
        signal: gone.signal,
      });
      await serveLogStream(req, res, logs, gone);
    },

    attach: async ({ req, res, params, query, version }) => {
      const detachKeys = parseDetachKeys(query.string('detachKeys'));
      const framed = !b.tty(params.id);
      const session = query.bool('stream') ? b.attach(params.id, attachRequest(query, version)) : undefined;
      const early = session && new EarlyOutput(session);
      const conn = await hijack(req, res);
      if (conn.upgraded && query.bool('logs')) await untilHeadRead(conn);
      const mux = new StreamMultiplexer(conn.conn, framed);
      try {
        await replayLogs(b, params.id, query, conn.conn, framed, conn.signal);
      } catch {
        session?.close();
        return conn.close();
      }
      if (!early) return conn.close();
      await serveSession(early, {
        conn: conn.conn,
        close: () => conn.close(),
        closed: conn.closed,
        mux,
        stdin: query.bool('stdin'),
        detachKeys,
      });
    },

    attachWs: async ({ req, res, params, query, version }) => {
      if (!isWebSocketHandshake(req)) throw new InvalidParameterError('not a WebSocket handshake (RFC 6455)');
      const detachKeys = parseDetachKeys(query.string('detachKeys'));
      const session: StdioSession | undefined = query.bool('stream')
        ? b.attach(params.id, attachRequest(query, version))
        : undefined;
      const early = session && new EarlyOutput(session);
      const ws = await acceptWebSocket(req, res, { binary: supports(version, 'wsBinaryFrames') });
      const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
      const gone = new AbortController();
      void closed.then(() => gone.abort());
      const close = () => void ws.end();
      try {
        await replayLogs(b, params.id, query, ws, false, gone.signal);
      } catch {
        session?.close();
        return close();
      }
      if (!early) return close();
      // Over a WebSocket output is always raw, as Docker sends it.
      await serveSession(early, {
        conn: ws,
        close,
        closed,
        mux: new StreamMultiplexer(ws, false),
        stdin: query.bool('stdin'),
        detachKeys,
      });
    },

    stats: async ({ res, params, query, version, signal }) => {
      const stream = query.bool('stream', true);
      const oneShot = supports(version, 'statsOneShot') && query.bool('one-shot');
      if (oneShot && stream) throw new InvalidParameterError('cannot have stream=true and one-shot=true');
      const samples = b.stats(params.id, {
        stream,
        oneShot,
        networksPerInterface: supports(version, 'statsNetworks'),
        onlineCpus: supports(version, 'statsOnlineCpus'),
        signal,
      });
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (stream) res.flushHeaders();
      for await (const sample of samples) {
        if (!res.write(`${JSON.stringify(sample)}\n`)) await whenDrained(res, { signal });
      }
      res.end();
    },
  };
}

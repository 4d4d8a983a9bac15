// A logs answer (a container's, or a service's tasks merged): its batches written as frames,
// over a hijacked connection when the client asked for an upgrade, as a raw stream otherwise.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import type { LogsStream } from '../../api/container-stream-types';
import { whenDrained } from '../../lib/when-drained';
import { hijack, wantsTcpUpgrade } from './hijack';
import { encodeLogBatch } from './log-frames';

/** `all`, empty or anything not a number means every line, as Docker reads it. */
export function parseTail(value: string | undefined): number | undefined {
  if (value === undefined || !/^-?\d+$/.test(value.trim())) return undefined;
  const n = Number(value);
  return n < 0 ? undefined : n;
}

/** Writes the stream until it ends or the client goes (`gone` is then aborted). */
export async function serveLogStream(
  req: IncomingMessage,
  res: ServerResponse,
  logs: LogsStream,
  gone: AbortController,
): Promise<void> {
  let out: Writable;
  let finish: () => void;
  if (wantsTcpUpgrade(req)) {
    const conn = await hijack(req, res);
    conn.signal.addEventListener('abort', () => gone.abort(), { once: true });
    out = conn.conn;
    finish = () => conn.close();
  } else {
    // No type, as dockerd 20.10 answers it (API 1.42 brought the stream media types).
    res.writeHead(200);
    res.flushHeaders();
    out = res;
    finish = () => res.end();
  }
  try {
    for await (const batch of logs.batches) {
      if (!out.write(encodeLogBatch(batch, !logs.tty))) await whenDrained(out, { signal: gone.signal });
      if (gone.signal.aborted) break;
    }
  } finally {
    finish();
  }
}

// A container's full log as a file the browser downloads: GET /engine/containers/{id}/log-file
// or /engines/{engine}/containers/{id}/log-file (?timestamps=1, ?token= as any download). The engine's logs answer is copied to the browser
// frame by frame with the stdcopy framing taken off, so neither the gateway nor the renderer ever
// holds the whole log, however long it is.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FrameParser } from '../../../daemon/server/streams/stdcopy';
import { sendError } from './responses';
import { engineGet, readJson } from './engine-get';
import type { Route, Upstreams } from './upstream';

/** The path after an engine route's prefix. */
export const LOG_FILE_PATH = /^(?:\/v[\d.]+)?\/containers\/([^/]+)\/log-file$/;

export async function sendLogFile(
  req: IncomingMessage,
  res: ServerResponse,
  route: Route,
  upstreams: Upstreams,
  id: string,
): Promise<void> {
  const timestamps = new URL(req.url ?? '/', 'http://gateway').searchParams.get('timestamps') === '1';
  const ref = encodeURIComponent(id);
  try {
    const inspected = await engineGet(route, upstreams, `/containers/${ref}/json`);
    const info = await readJson(inspected);
    if (inspected.statusCode !== 200)
      return sendError(res, inspected.statusCode ?? 502, info.message ?? 'inspect failed');
    const tty = (info.Config as { Tty?: boolean } | undefined)?.Tty === true;
    const name = String(info.Name ?? id).replace(/^\//, '') || id;
    const logs = await engineGet(
      route,
      upstreams,
      `/containers/${ref}/logs?stdout=1&stderr=1&timestamps=${timestamps ? 1 : 0}`,
    );
    if (logs.statusCode !== 200) {
      const body = await readJson(logs);
      return sendError(res, logs.statusCode ?? 502, body.message ?? 'logs failed');
    }
    res.writeHead(200, {
      'content-type': 'text/plain; charset=utf-8',
      'content-disposition': `attachment; filename="${name.replace(/[^\w.-]/g, '_')}.log"`,
    });
    req.once('close', () => logs.destroy());
    // A TTY's log has one stream and no framing: it is the file already.
    if (tty) return void logs.pipe(res);
    const parser = new FrameParser();
    for await (const chunk of logs as AsyncIterable<Buffer>) {
      for (const frame of parser.push(chunk)) {
        // Waits for the browser to take what it has before reading more from the engine.
        if (!res.write(frame.payload)) await new Promise((r) => res.once('drain', r));
      }
    }
    res.end();
  } catch (err) {
    if (!res.headersSent) sendError(res, 502, `engine unavailable: ${(err as Error).message}`);
    else res.destroy();
  }
}

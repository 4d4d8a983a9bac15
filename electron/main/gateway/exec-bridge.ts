// Terminals: a browser WebSocket on /engine/exec/{id}/start-ws (or /engines/{engine}/exec/…)
// becomes a hijacked POST /exec/{id}/start {Detach:false, Tty:true} on that engine, raw bytes both ways (a TTY exec has no
// stdcopy framing). Browser → engine: every message's bytes are the terminal's input. Engine →
// browser: binary messages of terminal output. Resize goes over plain HTTP (POST /exec/{id}/resize).
// When svcd refuses the start, the socket closes with code 4000 + HTTP status and its message.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  HijackRefusedError,
  requestHijack,
  type EngineAddress,
} from '../../../daemon/server/streams/hijack-client';
import type { WebSocketStream } from '../../../daemon/server/streams/websocket';

/** Groups: the engine's prefix, the API version, the exec id. */
export const EXEC_WS_PATH = /^(\/engine|\/engines\/[^/]+)(\/v[\d.]+)?\/exec\/([^/]+)\/start-ws$/;

export function bridgeExec(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  engine: EngineAddress,
  id: string,
): void {
  // Loaded at the first terminal, not at start: the WebSocket library is most of the gateway's
  // load time, before web mode prints its URL.
  import('../../../daemon/server/streams/websocket.js')
    .then(({ acceptWebSocket }) => acceptWebSocket(req, client, { binary: true }, head))
    .then(
      (ws) => startExec(ws, engine, id),
      () => client.destroy(),
    );
}

async function startExec(ws: WebSocketStream, engine: EngineAddress, id: string): Promise<void> {
  try {
    // Keystrokes typed before the engine answers wait in the WebSocket stream until piped.
    const { conn } = await requestHijack(engine, {
      method: 'POST',
      path: `/exec/${encodeURIComponent(id)}/start`,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ Detach: false, Tty: true }),
    });
    if (ws.destroyed) return void conn.destroy();
    ws.on('close', () => conn.destroy());
    conn.on('error', () => ws.destroy());
    ws.pipe(conn);
    conn.pipe(ws);
  } catch (err) {
    if (err instanceof HijackRefusedError) ws.ws.close(4000 + err.statusCode, closeReason(err.body));
    else ws.ws.close(4502, closeReason(`engine unavailable: ${(err as Error).message}`));
  }
}

/** A close reason holds at most 123 bytes; the engine's {message} is what the user needs. */
function closeReason(body: string): string {
  let text = body.trim();
  try {
    text = (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {}
  const buf = Buffer.from(text);
  return buf.length <= 123 ? text : buf.subarray(0, 116).toString('utf8') + '…';
}

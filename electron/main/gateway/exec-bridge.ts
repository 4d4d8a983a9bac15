// Terminals: a browser WebSocket on /engine/exec/{id}/start-ws becomes a hijacked
// POST /exec/{id}/start {Detach:false, Tty:true} on svcd, raw bytes both ways (a TTY exec has no
// stdcopy framing). Browser → engine: every message's bytes are the terminal's input. Engine →
// browser: binary messages of terminal output. Resize goes over plain HTTP (POST /exec/{id}/resize).
// When svcd refuses the start, the socket closes with code 4000 + HTTP status and its message.
// TODO(streams): switch to daemon/server/streams once it lands, if the layer rules allow it.
import http, { type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';

export const EXEC_WS_PATH = /^\/engine(\/v[\d.]+)?\/exec\/([^/]+)\/start-ws$/;

const wss = new WebSocketServer({ noServer: true });

export function bridgeExec(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  engineSocket: string,
  id: string,
) {
  wss.handleUpgrade(req, client, head, (ws) => startExec(ws, engineSocket, id));
}

function startExec(ws: WebSocket, engineSocket: string, id: string): void {
  const pending: Buffer[] = [];
  let sink: ((b: Buffer) => void) | undefined;
  ws.on('message', (data: RawData) => {
    const buf = toBuffer(data);
    if (sink) sink(buf);
    else pending.push(buf);
  });
  const body = JSON.stringify({ Detach: false, Tty: true });
  const req = http.request({
    // A hijacked connection is never returned to a pool.
    agent: false,
    socketPath: engineSocket,
    method: 'POST',
    path: `/exec/${encodeURIComponent(id)}/start`,
    headers: {
      host: 'svcd',
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      connection: 'Upgrade',
      upgrade: 'tcp',
    },
  });
  const connect = (output: NodeJS.ReadableStream, input: Duplex, head?: Buffer) => {
    if (head?.length) ws.send(head);
    output.on('data', (chunk: Buffer) => ws.send(chunk));
    output.on('end', () => ws.close(1000, 'exec ended'));
    sink = (b) => input.write(b);
    for (const b of pending.splice(0)) sink(b);
    ws.on('close', () => input.destroy());
  };
  // Docker answers 101 when asked to upgrade; a 200 with the raw stream is accepted too.
  req.on('upgrade', (_res, socket, head) => connect(socket, socket, head));
  req.on('response', (res) => {
    if (res.statusCode === 200) return connect(res, res.socket);
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => ws.close(4000 + (res.statusCode ?? 500), closeReason(Buffer.concat(chunks))));
  });
  req.on('error', (err) => ws.close(4502, closeReason(Buffer.from(`engine unavailable: ${err.message}`))));
  req.end(body);
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** A close reason holds at most 123 bytes; the engine's {message} is what the user needs. */
function closeReason(body: Buffer): string {
  let text = body.toString('utf8').trim();
  try {
    text = (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {}
  const buf = Buffer.from(text);
  return buf.length <= 123 ? text : buf.subarray(0, 116).toString('utf8') + '…';
}

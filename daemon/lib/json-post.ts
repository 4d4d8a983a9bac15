// One JSON POST to a local HTTP server over a unix socket or TCP, with a deadline: the plugin
// protocol's transport (`POST /Plugin.Activate`, `/VolumeDriver.Mount`, ...). A server that does
// not answer in time is cut off, so a hung plugin never holds its caller.
import http from 'node:http';

export interface JsonPostTarget {
  /** A unix socket path, or an http:// base URL (a legacy plugin's .spec file may name one). */
  socketPath?: string;
  baseUrl?: string;
}

export interface JsonPostAnswer {
  status: number;
  body: unknown;
}

export class JsonPostTimeoutError extends Error {}

const maxAnswerBytes = 16 << 20;

/** Sends `body` as JSON and reads a JSON answer (undefined when it is empty or not JSON). */
export function postJson(
  target: JsonPostTarget,
  path: string,
  body: unknown,
  timeoutMs: number,
  accept = 'application/vnd.docker.plugins.v1.2+json',
): Promise<JsonPostAnswer> {
  const payload = Buffer.from(JSON.stringify(body ?? {}));
  const url = target.baseUrl ? new URL(path, target.baseUrl) : undefined;
  return new Promise<JsonPostAnswer>((resolve, reject) => {
    const req = http.request({
      method: 'POST',
      ...(url
        ? { host: url.hostname, port: url.port, path: url.pathname }
        : { socketPath: target.socketPath, path }),
      headers: { Accept: accept, 'Content-Type': 'application/json', 'Content-Length': payload.length },
      agent: false,
    });
    const timer = setTimeout(() => {
      req.destroy(new JsonPostTimeoutError(`no answer to ${path} within ${timeoutMs / 1000}s`));
    }, timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxAnswerBytes)
          req.destroy(new Error(`answer to ${path} is larger than ${maxAnswerBytes} bytes`));
        else chunks.push(chunk);
      });
      res.on('error', () => undefined);
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text.trim() ? JSON.parse(text) : undefined;
        } catch {
          parsed = text;
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.end(payload);
  });
}

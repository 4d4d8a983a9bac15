// Writing ordinary (non-streaming) answers.
import type { ServerResponse } from 'node:http';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const data = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': data.length });
  res.end(data);
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  type = 'text/plain; charset=utf-8',
): void {
  const data = Buffer.from(text);
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': data.length });
  res.end(data);
}

export function sendStatus(res: ServerResponse, status: number): void {
  res.writeHead(status);
  res.end();
}

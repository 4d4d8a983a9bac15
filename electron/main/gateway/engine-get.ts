// GET requests the gateway makes to an engine on its own behalf (downloads it reshapes, views it
// computes), and the engine's JSON answers to them.
import http, { type IncomingMessage } from 'node:http';
import { upstreamOptions, type Route, type Upstreams } from './upstream';

export function engineGet(route: Route, upstreams: Upstreams, path: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) =>
    http.get(upstreamOptions(route, upstreams, path), resolve).once('error', reject),
  );
}

/** The answer's JSON, or `{message}` holding its text when it is not JSON (an engine's error). */
export async function readJson(
  res: IncomingMessage,
): Promise<{ message?: string } & Record<string, unknown>> {
  let text = '';
  for await (const chunk of res) text += String(chunk);
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { message: text };
  }
}

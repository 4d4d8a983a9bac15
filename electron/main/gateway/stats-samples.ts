// One-shot stats of several containers in one answer: GET /engine/stats-samples/{id},{id}… (or
// /engines/{engine}/…). The containers list samples every running container on screen each few
// seconds; one request a round instead of one per container keeps the renderer asleep between
// rounds (each request costs the page a task, an IPC round trip and a JSON parse) and holds one
// of the six connections Chromium allows per origin, not one per container in turn.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { engineGet, readJson } from './engine-get';
import { sendError, sendJson } from './responses';
import type { Route, Upstreams } from './upstream';

/** The path after an engine route's prefix; the ids are the engine's (hex), comma-separated. */
export const STATS_SAMPLES_PATH = /^(?:\/v[\d.]+)?\/stats-samples\/([0-9a-f,]+)$/;

/** More would be a list's bug: a screenful of rows is a few dozen. */
export const MAX_SAMPLES = 100;

/**
 * Answers an array in the order of the ids: each container's one-shot sample (precpu empty, as
 * the engine's own `one-shot` gives it), or `{message}` with the engine's error for that one
 * (gone since, not running), so one container's error does not fail the others.
 */
export async function sendStatsSamples(
  _req: IncomingMessage,
  res: ServerResponse,
  route: Route,
  upstreams: Upstreams,
  ids: string,
): Promise<void> {
  const list = ids.split(',').filter(Boolean);
  if (!list.length || list.length > MAX_SAMPLES)
    return sendError(res, 400, `between 1 and ${MAX_SAMPLES} container ids, comma-separated`);
  try {
    const samples = await Promise.all(
      list.map(async (id) => {
        const answer = await engineGet(
          route,
          upstreams,
          `/containers/${id}/stats?stream=false&one-shot=true`,
        );
        const body = await readJson(answer);
        return answer.statusCode === 200 ? body : { message: body.message ?? `HTTP ${answer.statusCode}` };
      }),
    );
    sendJson(res, 200, samples);
  } catch (err) {
    sendError(res, 502, `engine unavailable: ${(err as Error).message}`);
  }
}

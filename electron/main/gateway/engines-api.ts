// /api/engines: the engines added in Settings. GET lists their summaries, POST adds one (checked
// first: a 400 names the problem), DELETE removes one, GET /{id}/status asks it for /version.
// Credentials stay in the main process: only summaries and statuses are answered.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EngineRequestError, type AddedEngines } from '../engines/added-engines';
import { readJsonBody, sendError, sendJson } from './responses';

export async function handleEnginesApi(
  req: IncomingMessage,
  res: ServerResponse,
  rest: string[],
  engines: AddedEngines,
): Promise<void> {
  const id = rest[0] === undefined ? undefined : decodeURIComponent(rest[0]);
  try {
    if (req.method === 'GET' && rest.length === 0) return sendJson(res, 200, engines.list());
    if (req.method === 'POST' && rest.length === 0)
      return sendJson(res, 201, engines.add(await readJsonBody(req)));
    if (req.method === 'DELETE' && id !== undefined && rest.length === 1) {
      engines.remove(id);
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'GET' && id !== undefined && rest[1] === 'status' && rest.length === 2)
      return sendJson(res, 200, await engines.status(id));
    sendError(res, 404, `no such endpoint: ${req.method} /api/engines/${rest.join('/')}`);
  } catch (err) {
    if (err instanceof EngineRequestError) return sendError(res, err.status, err.message);
    sendError(res, 500, (err as Error).message);
  }
}

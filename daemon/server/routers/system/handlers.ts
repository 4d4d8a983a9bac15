import { sendJson } from '../../http/respond';
import type { Handler } from '../../router';
import type { SystemBackend } from './backend';

/** GET and HEAD /_ping: `OK`, never cached, so clients can probe liveness and the API version. */
export const ping: Handler = async ({ req, res }) => {
  res.writeHead(200, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': 2,
    'Cache-Control': 'no-cache, no-store, must-revalidate',
    Pragma: 'no-cache',
    // The classic builder is the only one svcd has; the CLI reads this to pick its build client.
    'Builder-Version': '1',
  });
  res.end(req.method === 'HEAD' ? undefined : 'OK');
};

export function systemHandlers(backend: SystemBackend): Record<'version' | 'info' | 'diskUsage', Handler> {
  return {
    version: async ({ res }) => sendJson(res, 200, await backend.version()),
    info: async ({ res }) => sendJson(res, 200, await backend.info()),
    diskUsage: async ({ res }) => sendJson(res, 200, await backend.diskUsage()),
  };
}

import { sendJson } from '../../http/respond';
import type { Handler } from '../../router';
import type { DistributionBackend } from './backend';

export function distributionHandlers(backend: DistributionBackend): Record<'inspect', Handler> {
  return {
    inspect: async ({ req, res, params, signal }) => {
      const header = req.headers['x-registry-auth'];
      const auth = Array.isArray(header) ? header[0] : header;
      sendJson(res, 200, await backend.distributionInspect(params.name, auth, signal));
    },
  };
}

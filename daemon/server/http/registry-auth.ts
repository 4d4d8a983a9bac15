// The X-Registry-Auth header (base64 JSON credentials) that pulls, pushes and searches carry.
import type { IncomingMessage } from 'node:http';

export function registryAuthHeader(req: IncomingMessage): string | undefined {
  const header = req.headers['x-registry-auth'];
  return Array.isArray(header) ? header[0] : header;
}

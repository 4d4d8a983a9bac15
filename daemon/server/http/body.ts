// Request bodies: JSON with a size cap and clear 400s, as every create/update endpoint needs.
import type { IncomingMessage } from 'node:http';
import { InvalidParameterError } from '../../api/errors';
import { parseJsonBounded } from '../../lib/json-bounded';

const maxJsonBody = 16 * 1024 * 1024;

/** Bodies of upgraded requests: node leaves them on the socket, so the server reads them first. */
const upgradeBodies = new WeakMap<IncomingMessage, Buffer>();

export function setUpgradeBody(req: IncomingMessage, body: Buffer): void {
  upgradeBodies.set(req, body);
}

export async function readBody(req: IncomingMessage, limit = maxJsonBody): Promise<Buffer> {
  const parked = upgradeBodies.get(req);
  if (parked) return parked;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new InvalidParameterError(`request body larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Reads a JSON body. An empty body yields undefined; a Content-Type other than JSON is refused
 * as Docker refuses it, since a client that sends one means something else.
 */
export async function readJson<T>(req: IncomingMessage): Promise<T | undefined> {
  const type = req.headers['content-type'];
  const raw = await readBody(req);
  if (raw.length === 0) return undefined;
  if (type && !/^application\/json\b/i.test(type)) {
    throw new InvalidParameterError(`Content-Type specified (${type}) must be 'application/json'`);
  }
  return parseJsonBounded(raw.toString('utf8'), 'JSON body') as T;
}

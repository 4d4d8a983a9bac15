// Request bodies: JSON with a size cap and clear 400s, as every create/update endpoint needs.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { InvalidParameterError } from '../../api/errors';
import { parseJsonBounded } from '../../lib/json-bounded';

const maxJsonBody = 16 * 1024 * 1024;
/** How much of a body nobody wants any more is read and dropped before the connection is cut. */
const maxDiscarded = 256 * 1024 * 1024;

/** Bodies of upgraded requests: node leaves them on the socket, so the server reads them first. */
const upgradeBodies = new WeakMap<IncomingMessage, Buffer>();

export function setUpgradeBody(req: IncomingMessage, body: Buffer): void {
  upgradeBodies.set(req, body);
}

/** Requests whose rest is being read and dropped already (a handler's and the answer's end ask). */
const discarding = new WeakSet<IncomingMessage>();

/**
 * Reads what is left of a body svcd no longer wants (it answered an error before the end), so
 * the client can send it all and then read the answer: closing a socket with unread data resets
 * the connection, and the client would see the reset instead of the error. Past the bound the
 * connection is cut after all.
 */
export function discardRest(req: IncomingMessage): void {
  if (req.complete || req.destroyed || discarding.has(req)) return;
  discarding.add(req);
  let left = maxDiscarded;
  req.on('data', (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) req.destroy();
  });
  req.resume();
}

/**
 * Holds the end of an answer until the request's body is in, the rest read and dropped: Node
 * closes a connection the client asked to close as soon as the answer ends, and closing with
 * unread data resets it, so the client would see the reset instead of the answer (an error that
 * came while a large upload was still being sent: a full disk, a bad archive). Upgraded requests
 * have read their body already.
 */
export function answerAfterBody(req: IncomingMessage, res: ServerResponse): void {
  if (upgradeBodies.has(req)) return;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    if (req.complete || req.destroyed) return end(...args);
    req.unpipe();
    let ended = false;
    const go = () => {
      if (!ended) end(...args);
      ended = true;
    };
    req.once('end', go).once('close', go);
    discardRest(req);
    return res;
  }) as ServerResponse['end'];
}

/**
 * The body as a stream of its own for an engine call that may fail, and destroy its source, while
 * the body is still coming: the request stays whole, so the error can still be answered.
 */
export function bodyStream(req: IncomingMessage): Readable {
  const body = new PassThrough();
  // A handler that failed before reading the body no longer listens: the client's hang-up then
  // concerns nobody and must not be an unhandled error.
  body.on('error', () => undefined);
  req.pipe(body);
  req.once('close', () => {
    if (!req.complete) body.destroy(new Error('the client closed the connection before the body ended'));
  });
  body.once('close', () => {
    req.unpipe(body);
    discardRest(req);
  });
  return body;
}

export function readBody(req: IncomingMessage, limit = maxJsonBody): Promise<Buffer> {
  const parked = upgradeBodies.get(req);
  if (parked) return Promise.resolve(parked);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData).off('end', onEnd);
      discardRest(req);
      reject(new InvalidParameterError(`request body larger than ${limit} bytes`));
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    req.on('data', onData).once('end', onEnd).once('error', reject);
  });
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

/** A JSON body that must be an object (a spec): anything else is a 400 naming what it got. */
export async function readJsonObject<T extends object>(req: IncomingMessage, empty?: T): Promise<T> {
  const body = await readJson<unknown>(req);
  if (body === undefined && empty) return empty;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new InvalidParameterError('the body must be a JSON object');
  return body as T;
}

/** The `version` query a swarm object's update must give (the object's version it read). */
export function requiredVersion(query: { string(name: string): string | undefined }): number {
  const raw = query.string('version') ?? '';
  if (!/^\d+$/.test(raw))
    throw new InvalidParameterError(`invalid version ${JSON.stringify(raw)}: a version number is required`);
  return Number(raw);
}

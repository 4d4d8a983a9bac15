// Blob uploads: start (or mount, or single-request upload), chunked PATCH, status, complete,
// cancel. A 4xx other than 416 fails the upload, whose data is then dropped.
import type { IncomingMessage } from 'node:http';
import type { Digest } from '../../lib/digest';
import { isNoSpace, RegistryError } from '../api/error-codes';
import { setTwin } from '../api/headers';
import { isRepositoryName } from '../api/names';
import { RangeInvalidError, unknownUpload, type ByteRange } from '../storage/upload-writer';
import { emitEvent, sendEmpty, type Handler, type RequestContext } from './context';
import { digestParam } from './references';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Errors that leave the upload usable: the client may retry or resume. */
const keepsUpload = new Set([
  'RANGE_INVALID',
  'BLOB_UPLOAD_UNKNOWN',
  'UNAUTHORIZED',
  'DENIED',
  'TOOMANYREQUESTS',
]);

function uuidParam(ctx: RequestContext): string {
  if (!uuidPattern.test(ctx.params.uuid)) throw unknownUpload(ctx.params.uuid);
  return ctx.params.uuid;
}

function rangeHeader(offset: number): string {
  return offset === 0 ? '0-0' : `0-${offset - 1}`;
}

function uploadHeaders(ctx: RequestContext, uuid: string, offset: number): Record<string, string> {
  setTwin(ctx.res, 'uploadUuid', uuid);
  return {
    Location: `${ctx.baseUrl}/v2/${ctx.params.name}/blobs/uploads/${uuid}`,
    Range: rangeHeader(offset),
  };
}

function hasBody(req: IncomingMessage): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

/** The chunk range a request declares in Content-Range; undefined when it declares none. */
function contentRange(req: IncomingMessage): ByteRange | 'invalid' | undefined {
  const header = req.headers['content-range'];
  if (!header) return undefined;
  const m = /^(?:bytes[ =])?(\d+)-(\d+)(?:\/(?:\d+|\*))?$/.exec(header.trim());
  if (!m) return 'invalid';
  const range = { start: Number(m[1]), end: Number(m[2]) };
  const length = req.headers['content-length'];
  if (range.end < range.start || (length !== undefined && Number(length) !== range.end - range.start + 1)) {
    return 'invalid';
  }
  return range;
}

async function chunkRange(ctx: RequestContext, uuid: string): Promise<ByteRange | undefined> {
  const range = contentRange(ctx.req);
  if (range !== 'invalid') return range;
  const offset = await ctx.storage.uploads.offset(ctx.params.name, uuid);
  throw new RangeInvalidError(offset, `invalid Content-Range ${ctx.req.headers['content-range']}`);
}

/**
 * Once the request's body is in, what is left (an object store's copy of a whole blob) is the
 * registry's work, not a stalled client: the connection's idle timer waits for the answer.
 */
function pauseIdleTimerAfterBody(ctx: RequestContext): void {
  const { req, res } = ctx;
  const pause = (): void => void req.socket.setTimeout(0);
  if (req.readableEnded) pause();
  else req.once('end', pause);
  res.once('finish', () => req.socket.setTimeout(ctx.config.idleTimeoutSeconds * 1000));
}

/** Runs an upload step; a 416 gets the upload's headers, other 4xx and a full disk cancel the upload. */
async function uploadStep(ctx: RequestContext, uuid: string, step: () => Promise<void>): Promise<void> {
  pauseIdleTimerAfterBody(ctx);
  try {
    await step();
  } catch (err) {
    if (err instanceof RangeInvalidError) {
      for (const [k, v] of Object.entries(uploadHeaders(ctx, uuid, err.offset))) ctx.res.setHeader(k, v);
    } else if (err instanceof RegistryError && err.status < 500 && !keepsUpload.has(err.entries[0].code)) {
      await ctx.storage.uploads.cancel(ctx.params.name, uuid);
    } else if (isNoSpace(err)) {
      // Its bytes would keep the disk full: the client pushes again once space is freed.
      await ctx.storage.uploads.cancel(ctx.params.name, uuid);
    }
    throw err;
  }
}

function blobCreated(ctx: RequestContext, digest: Digest, action: 'push' | 'mount', size?: number): void {
  const location = `${ctx.baseUrl}/v2/${ctx.params.name}/blobs/${digest}`;
  setTwin(ctx.res, 'contentDigest', digest);
  sendEmpty(ctx.res, 201, { Location: location });
  emitEvent(ctx, { action, target: { repository: ctx.params.name, digest, size, url: location } });
}

/** Links a blob of another repository when the caller may read it; false to fall back. */
async function tryMount(ctx: RequestContext, mount: string, from: string): Promise<boolean> {
  const { storage, params, auth } = ctx;
  if (!isRepositoryName(from) || !auth.allows({ type: 'repository', name: from, actions: ['pull'] }))
    return false;
  let digest: Digest;
  try {
    digest = digestParam(mount);
  } catch {
    return false;
  }
  const info = await storage.layers.stat(from, digest);
  if (!info) return false;
  await storage.layers.link(params.name, digest);
  await storage.blobs.touch(digest);
  blobCreated(ctx, digest, 'mount', info.size);
  return true;
}

export const startBlobUpload: Handler = async (ctx) => {
  const { url, params, storage } = ctx;
  const mount = url.searchParams.get('mount');
  const from = url.searchParams.get('from');
  if (mount && from && (await tryMount(ctx, mount, from))) return;
  const digests = url.searchParams.getAll('digest');
  const uuid = await storage.uploads.start(params.name);
  if (digests.length) {
    return uploadStep(ctx, uuid, async () => {
      const wanted = digests.map(digestParam);
      const digest = await storage.uploads.commit(params.name, uuid, wanted, ctx.req);
      blobCreated(ctx, digest, 'push');
    });
  }
  sendEmpty(ctx.res, 202, uploadHeaders(ctx, uuid, 0));
};

export const getUploadStatus: Handler = async (ctx) => {
  const uuid = uuidParam(ctx);
  const offset = await ctx.storage.uploads.offset(ctx.params.name, uuid);
  sendEmpty(ctx.res, 204, uploadHeaders(ctx, uuid, offset));
};

export const patchBlobData: Handler = async (ctx) => {
  const uuid = uuidParam(ctx);
  await uploadStep(ctx, uuid, async () => {
    const range = await chunkRange(ctx, uuid);
    const offset = await ctx.storage.uploads.patch(ctx.params.name, uuid, ctx.req, range);
    sendEmpty(ctx.res, 202, uploadHeaders(ctx, uuid, offset));
  });
};

export const putBlobUploadComplete: Handler = async (ctx) => {
  const uuid = uuidParam(ctx);
  const given = ctx.url.searchParams.getAll('digest');
  await ctx.storage.uploads.offset(ctx.params.name, uuid);
  if (given.length === 0) {
    // The state table's "PUT without digest": the upload stays open, not complete.
    throw new RegistryError('DIGEST_INVALID', 'digest missing: the upload is not complete');
  }
  await uploadStep(ctx, uuid, async () => {
    const digests = given.map(digestParam);
    const range = await chunkRange(ctx, uuid);
    const body = hasBody(ctx.req) ? ctx.req : undefined;
    const digest = await ctx.storage.uploads.commit(ctx.params.name, uuid, digests, body, range);
    blobCreated(ctx, digest, 'push');
  });
};

export const cancelBlobUpload: Handler = async (ctx) => {
  const uuid = uuidParam(ctx);
  await ctx.storage.uploads.offset(ctx.params.name, uuid);
  await ctx.storage.uploads.cancel(ctx.params.name, uuid);
  sendEmpty(ctx.res, 204);
};

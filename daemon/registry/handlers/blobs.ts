// Blobs: GET with ranges and ETags, HEAD, DELETE (unlinks from the repository; gc frees data).
import { RegistryError } from '../api/error-codes';
import { setTwin } from '../api/headers';
import { sendRange } from './blob-sender';
import { emitEvent, sendEmpty, type Handler, type RequestContext } from './context';
import { digestParam, notModified } from './references';
import type { Digest } from '../../lib/digest';
import type { RandomReader } from '../storage/driver';

/** The single byte range asked for; 'unsatisfiable' or undefined (whole blob) otherwise. */
function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

/**
 * The blob the repository links, as a layer or a manifest revision, opened for reading when its
 * bytes are to be sent (its size then comes with it: one lookup of the store less).
 */
async function findBlob(
  ctx: RequestContext,
  opened: boolean,
): Promise<{ info: { digest: Digest; size: number }; file?: RandomReader }> {
  const { params, storage } = ctx;
  const digest = digestParam(params.digest);
  for (const view of [storage.layers, storage.revisions]) {
    if (opened) {
      const file = await view.open(params.name, digest);
      if (file) return { info: { digest, size: file.size }, file };
    } else {
      const info = await view.stat(params.name, digest);
      if (info) return { info };
    }
  }
  throw new RegistryError('BLOB_UNKNOWN', undefined, { digest });
}

export const getBlob: Handler = async (ctx) => {
  const { req, res, params, storage } = ctx;
  const redirects = ctx.config.redirect && req.method === 'GET' && storage.blobs.redirects();
  const { info, file } = await findBlob(ctx, req.method === 'GET' && !redirects);
  let sending = false;
  try {
    setTwin(res, 'contentDigest', info.digest);
    res.setHeader('ETag', `"${info.digest}"`);
    res.setHeader('Cache-Control', 'max-age=31536000');
    res.setHeader('Accept-Ranges', 'bytes');
    if (notModified(req.headers['if-none-match'], info.digest)) return sendEmpty(res, 304);
    const range = parseRange(req.headers.range, info.size);
    if (range === 'unsatisfiable') {
      res.setHeader('Content-Range', `bytes */${info.size}`);
      throw new RegistryError('RANGE_INVALID', 'requested range not satisfiable', { size: info.size });
    }
    if (redirects) return sendEmpty(res, 307, { Location: await storage.blobs.redirectUrl(info.digest)! });
    res.setHeader('Content-Type', 'application/octet-stream');
    if (range) {
      res.statusCode = 206;
      res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${info.size}`);
      res.setHeader('Content-Length', range.end - range.start + 1);
    } else {
      res.statusCode = 200;
      res.setHeader('Content-Length', info.size);
    }
    if (!file || info.size === 0) return void res.end();
    sending = true;
    await sendRange(res, file, range?.start ?? 0, range?.end ?? info.size - 1);
  } finally {
    // sendRange closes the file it was given.
    if (!sending) await file?.close();
  }
  emitEvent(ctx, {
    action: 'pull',
    target: { repository: params.name, digest: info.digest, size: info.size },
  });
};

export const deleteBlob: Handler = async (ctx) => {
  const { res, params, storage, config } = ctx;
  if (!config.deleteEnabled) throw new RegistryError('UNSUPPORTED', 'deletion is disabled');
  const digest = digestParam(params.digest);
  if (!(await storage.layers.unlink(params.name, digest)))
    throw new RegistryError('BLOB_UNKNOWN', undefined, { digest });
  sendEmpty(res, 202);
  emitEvent(ctx, { action: 'delete', target: { repository: params.name, digest } });
};

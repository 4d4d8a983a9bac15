// Blobs: GET with ranges and ETags, HEAD, DELETE (unlinks from the repository; gc frees data).
import { RegistryError } from '../api/error-codes';
import { setTwin } from '../api/headers';
import { sendRange } from './blob-sender';
import { emitEvent, sendEmpty, type Handler, type RequestContext } from './context';
import { digestParam, notModified } from './references';

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

async function findBlob(ctx: RequestContext) {
  const { params, storage } = ctx;
  const digest = digestParam(params.digest);
  const info =
    (await storage.layers.stat(params.name, digest)) ?? (await storage.revisions.stat(params.name, digest));
  if (!info) throw new RegistryError('BLOB_UNKNOWN', undefined, { digest });
  return info;
}

export const getBlob: Handler = async (ctx) => {
  const { req, res, params, storage } = ctx;
  const info = await findBlob(ctx);
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
  const redirect =
    ctx.config.redirect && req.method === 'GET' ? storage.blobs.redirectUrl(info.digest) : undefined;
  if (redirect) return sendEmpty(res, 307, { Location: await redirect });
  res.setHeader('Content-Type', 'application/octet-stream');
  const sendsBody = req.method !== 'HEAD' && info.size > 0;
  const file = sendsBody ? await storage.blobs.open(info.digest) : undefined;
  // Gone since the link check: removed by gc.
  if (sendsBody && !file) throw new RegistryError('BLOB_UNKNOWN', undefined, { digest: info.digest });
  if (range) {
    res.statusCode = 206;
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${info.size}`);
    res.setHeader('Content-Length', range.end - range.start + 1);
  } else {
    res.statusCode = 200;
    res.setHeader('Content-Length', info.size);
  }
  if (!file) return void res.end();
  await sendRange(res, file, range?.start ?? 0, range?.end ?? info.size - 1);
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

// Manifests: GET/HEAD by tag or digest honouring Accept, PUT by tag or digest, DELETE by digest
// (the manifest) or by tag (the tag alone, as OCI distribution 1.1 has it).
import type { IncomingMessage } from 'node:http';
import { RegistryError } from '../api/error-codes';
import { setTwin } from '../api/headers';
import { canonicalMediaType, svcTwin } from '../../lib/media-types';
import { maxManifestBytes } from '../../lib/manifest-body';
import type { ParsedManifest } from '../storage/manifest-parser';
import { emitEvent, sendEmpty, type Handler } from './context';
import { isTag } from '../api/names';
import { digestParam, notModified, referenceParam } from './references';

function acceptedTypes(req: IncomingMessage): string[] {
  const raw = req.headersDistinct?.accept ?? [];
  return raw
    .flatMap((h) => h.split(','))
    .map((t) => t.split(';')[0].trim().toLowerCase())
    .filter(Boolean);
}

/** The Content-Type to answer with, or undefined when the client accepts none of the names. */
function negotiate(parsed: ParsedManifest, accepted: string[]): string | undefined {
  if (accepted.length === 0 || accepted.includes('*/*') || accepted.includes(parsed.declaredType)) {
    return parsed.declaredType;
  }
  if (accepted.includes(parsed.mediaType)) return parsed.mediaType;
  const twin = svcTwin(parsed.mediaType);
  if (twin && accepted.includes(twin)) return twin;
  return undefined;
}

export const getManifest: Handler = async (ctx) => {
  const { req, res, params, storage } = ctx;
  const isDigestRef = params.reference.includes(':');
  const ref = isDigestRef ? referenceParam(params.reference) : { tag: params.reference };
  // A tag that cannot exist names no manifest: 404, as the OCI conformance suites expect (and
  // no storage path is built from it).
  const stored =
    isDigestRef || isTag(params.reference)
      ? await storage.manifests.get(params.name, params.reference)
      : undefined;
  if (!stored) {
    throw new RegistryError(
      'MANIFEST_UNKNOWN',
      undefined,
      ref.digest ? { digest: ref.digest } : { tag: ref.tag },
    );
  }
  const { parsed, body } = stored;
  const contentType = negotiate(parsed, acceptedTypes(req));
  if (!contentType) {
    throw new RegistryError(
      'MANIFEST_UNKNOWN',
      `manifest is ${parsed.declaredType}, which the Accept header does not list`,
      { tag: ref.tag, mediaType: parsed.declaredType },
    );
  }
  setTwin(res, 'contentDigest', parsed.digest);
  res.setHeader('ETag', `"${parsed.digest}"`);
  // Content named by its digest never changes; a tag may move, so only digests are cacheable.
  if (ref.digest) res.setHeader('Cache-Control', 'max-age=31536000');
  if (notModified(req.headers['if-none-match'], parsed.digest)) return sendEmpty(res, 304);
  res.statusCode = 200;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', body.length);
  if (req.method === 'HEAD') return void res.end();
  res.end(body);
  emitEvent(ctx, {
    action: 'pull',
    target: {
      repository: params.name,
      digest: parsed.digest,
      mediaType: parsed.mediaType,
      size: body.length,
      tag: ref.tag,
    },
  });
};

async function readManifestBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxManifestBytes) {
    throw new RegistryError('MANIFEST_INVALID', `manifest larger than ${maxManifestBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxManifestBytes)
      throw new RegistryError('MANIFEST_INVALID', `manifest larger than ${maxManifestBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export const putManifest: Handler = async (ctx) => {
  const { req, res, params, storage, baseUrl } = ctx;
  const ref = referenceParam(params.reference);
  const body = await readManifestBody(req);
  const contentType = req.headers['content-type'];
  const parsed = await storage.manifests.put(params.name, params.reference, body, contentType);
  const location = `${baseUrl}/v2/${params.name}/manifests/${parsed.digest}`;
  setTwin(res, 'contentDigest', parsed.digest);
  // OCI 1.1: the registry tells it indexed the subject, so clients need no fallback tag.
  if (parsed.subject) res.setHeader('OCI-Subject', parsed.subject);
  sendEmpty(res, 201, { Location: location });
  emitEvent(ctx, {
    action: 'push',
    target: {
      repository: params.name,
      digest: parsed.digest,
      mediaType: canonicalMediaType(parsed.mediaType),
      size: body.length,
      tag: ref.tag,
      url: location,
    },
  });
};

export const deleteManifest: Handler = async (ctx) => {
  const { res, params, storage, config } = ctx;
  if (!config.deleteEnabled) throw new RegistryError('UNSUPPORTED', 'deletion is disabled');
  if (!params.reference.includes(':')) {
    const { tag } = referenceParam(params.reference);
    if (!(await storage.tags.resolve(params.name, tag!)))
      throw new RegistryError('MANIFEST_UNKNOWN', undefined, { tag });
    await storage.tags.untag(params.name, tag!);
    sendEmpty(res, 202);
    emitEvent(ctx, { action: 'delete', target: { repository: params.name, tag } });
    return;
  }
  const digest = digestParam(params.reference);
  if (!(await storage.manifests.delete(params.name, digest))) {
    throw new RegistryError('MANIFEST_UNKNOWN', undefined, { digest });
  }
  sendEmpty(res, 202);
  emitEvent(ctx, { action: 'delete', target: { repository: params.name, digest } });
};

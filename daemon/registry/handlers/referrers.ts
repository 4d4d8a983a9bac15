// OCI distribution 1.1's referrers API: an image index of the manifests of a repository whose
// `subject` is the digest asked about, optionally only those of one artifactType.
import { MediaTypes } from '../../lib/media-types';
import type { Handler } from './context';
import { digestParam } from './references';

export const getReferrers: Handler = async (ctx) => {
  const { res, params, storage, url } = ctx;
  const subject = digestParam(params.digest);
  const wanted = url.searchParams.get('artifactType');
  // A subject not (yet) pushed has no referrers: an empty index, not a 404.
  const manifests = (await storage.manifests.referrers(params.name, subject))
    .filter(({ parsed }) => wanted === null || parsed.artifactType === wanted)
    .map(({ parsed, body }) => {
      const annotations = (JSON.parse(body.toString()) as { annotations?: unknown }).annotations;
      return {
        mediaType: parsed.mediaType,
        digest: parsed.digest,
        size: body.length,
        ...(parsed.artifactType ? { artifactType: parsed.artifactType } : {}),
        ...(annotations && typeof annotations === 'object' ? { annotations } : {}),
      };
    });
  if (wanted !== null) res.setHeader('OCI-Filters-Applied', 'artifactType');
  const index = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: MediaTypes.ociIndex, manifests }));
  res.writeHead(200, { 'Content-Type': MediaTypes.ociIndex, 'Content-Length': index.length });
  res.end(index);
};

// URL parameters shared by the blob, upload and manifest handlers.
import { isDigest, type Digest } from '../../lib/digest';
import { RegistryError } from '../api/error-codes';
import { isTag } from '../api/names';

export function digestParam(value: string): Digest {
  if (!isDigest(value))
    throw new RegistryError('DIGEST_INVALID', `invalid digest: ${value}`, { digest: value });
  return value;
}

/** A manifest reference: a digest, or a tag. */
export function referenceParam(value: string): { digest?: Digest; tag?: string } {
  if (value.includes(':')) return { digest: digestParam(value) };
  if (!isTag(value)) throw new RegistryError('TAG_INVALID', `invalid tag: ${value}`, { tag: value });
  return { tag: value };
}

/** An ETag check: true when the client's If-None-Match names this digest. */
export function notModified(ifNoneMatch: string | undefined, digest: Digest): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim().replace(/^W\//, '');
    return t === '*' || t === `"${digest}"` || t === digest;
  });
}

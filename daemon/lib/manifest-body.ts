// What the registry client (pulling) and the registry (serving) both read from a manifest body
// before each applies its own checks: its size limit, its JSON object and its media type.
import { canonicalMediaType, MediaTypes } from './media-types';

/** Manifests are small; anything bigger is refused rather than buffered (containerd's limit). */
export const maxManifestBytes = 4 << 20;

/** The body as a JSON object, or undefined when it is not JSON or not an object. */
export function manifestObject(bytes: Buffer): Record<string, unknown> | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  return doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : undefined;
}

/**
 * The media type the body says it has: schema1 (signed or not) by its version, else its
 * `mediaType`, else an index by its `manifests` or a manifest by its `config`.
 */
export function bodyMediaType(doc: Record<string, unknown>): string | undefined {
  if (doc.schemaVersion === 1)
    return doc.signatures ? MediaTypes.dockerSchema1Signed : MediaTypes.dockerSchema1;
  if (typeof doc.mediaType === 'string' && doc.mediaType) return canonicalMediaType(doc.mediaType);
  if (Array.isArray(doc.manifests)) return MediaTypes.ociIndex;
  if (doc.config) return MediaTypes.ociManifest;
  return undefined;
}

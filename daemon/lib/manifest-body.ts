// What the registry client (pulling) and the registry (serving) both read from a manifest body
// before each applies its own checks: its size limit, its JSON object and its media type.
import { InvalidParameterError } from '../api/errors';
import { canonicalMediaType, MediaTypes } from './media-types';
import { digestOf } from './registry-wire/verifying-stream';

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

export function invalidManifest(message: string): InvalidParameterError {
  return new InvalidParameterError(`invalid manifest: ${message}`);
}

const genericTypes = new Set(['', 'application/json', 'text/plain', 'application/octet-stream']);

/** The media type of a manifest body: the declared one unless generic, else what the body says. */
export function manifestMediaType(body: Record<string, unknown>, contentType?: string | null): string {
  const declared = canonicalMediaType(contentType ?? '');
  if (!genericTypes.has(declared)) return declared;
  const said = bodyMediaType(body);
  if (!said) throw invalidManifest('unknown manifest type');
  return said;
}

/**
 * The digest a registry gives a manifest: over the whole body, except signed schema1 whose digest
 * covers the JWS payload (the body without its `signatures`, as the protected header describes).
 */
export function manifestDigest(bytes: Buffer, mediaType: string, algorithmOf = 'sha256:'): string {
  if (canonicalMediaType(mediaType) !== MediaTypes.dockerSchema1Signed) return digestOf(bytes, algorithmOf);
  const body = JSON.parse(bytes.toString('utf8')) as { signatures?: { protected: string }[] };
  const signature = body.signatures?.[0];
  if (!signature) return digestOf(bytes, algorithmOf);
  const header = JSON.parse(Buffer.from(signature.protected, 'base64url').toString('utf8')) as {
    formatLength: number;
    formatTail: string;
  };
  const payload = Buffer.concat([
    bytes.subarray(0, header.formatLength),
    Buffer.from(header.formatTail, 'base64url'),
  ]);
  return digestOf(payload, algorithmOf);
}

// Reads a manifest body of any supported schema: its kind, media type, digest and the blobs and
// child manifests it references. Nothing here touches storage.
import { isDigest, sha256, type Digest } from '../../lib/digest';
import { RegistryError } from '../api/error-codes';
import {
  canonicalMediaType,
  isImageIndex,
  isImageManifest,
  isSchema1Manifest,
  MediaTypes,
} from '../../lib/media-types';
import { verifySchema1 } from './schema1-signature';
import { bodyMediaType, manifestObject } from '../../lib/manifest-body';

export interface BlobReference {
  digest: Digest;
  size?: number;
}

export interface ParsedManifest {
  kind: ManifestKind;
  /** The Docker or OCI media type (vnd.svc.* twins are folded onto their Docker names). */
  mediaType: string;
  /** The type as the body itself declares it (it may be a vnd.svc.* twin). */
  declaredType: string;
  digest: Digest;
  /** Layers and config: must exist as blobs of the repository (of this size when one is given). */
  blobs: BlobReference[];
  /** Child manifests of an index: must exist as manifests of the repository. */
  manifests: Digest[];
  /** OCI 1.1: the manifest this one refers to (a signature, an SBOM...), and what it is. */
  subject?: Digest;
  artifactType?: string;
  /** schema1 only: the name and tag written in the body. */
  name?: string;
  tag?: string;
}

function invalid(message: string, detail?: unknown): RegistryError {
  return new RegistryError('MANIFEST_INVALID', `manifest invalid: ${message}`, detail);
}

function descriptorDigest(value: unknown, where: string): Digest {
  const digest = (value as { digest?: unknown } | null)?.digest;
  if (typeof digest !== 'string' || !isDigest(digest)) throw invalid(`${where} has no valid digest`);
  return digest;
}

function blobReference(value: unknown, where: string): BlobReference {
  const digest = descriptorDigest(value, where);
  const size = (value as { size?: unknown }).size;
  if (size !== undefined && (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)) {
    throw invalid(`${where} has an invalid size`);
  }
  return size === undefined ? { digest } : { digest, size };
}

function descriptors(value: unknown, where: string): Record<string, unknown>[] {
  if (!Array.isArray(value)) throw invalid(`${where} must be a list`);
  return value as Record<string, unknown>[];
}

function isForeign(layer: Record<string, unknown>): boolean {
  return Array.isArray(layer.urls) && layer.urls.length > 0;
}

function typeOf(doc: Record<string, unknown>, contentType: string | undefined): string {
  const said = bodyMediaType(doc) ?? MediaTypes.ociManifest;
  if (doc.schemaVersion !== 1 && typeof doc.mediaType === 'string') {
    const given = contentType ? canonicalMediaType(contentType) : undefined;
    if (given && manifestKind(given) && given !== said) {
      throw invalid(`Content-Type ${contentType} does not match mediaType ${doc.mediaType}`);
    }
  }
  return said;
}

export function parseManifest(body: Buffer, contentType?: string): ParsedManifest {
  const doc = manifestObject(body);
  if (!doc) throw invalid('not a JSON object');
  const mediaType = typeOf(doc, contentType);
  const kind = manifestKind(mediaType);
  const declaredType = typeof doc.mediaType === 'string' ? doc.mediaType.toLowerCase() : mediaType;
  if (!kind) throw invalid(`unsupported media type ${mediaType}`);
  if (kind === 'schema1') {
    if (mediaType !== MediaTypes.dockerSchema1Signed) throw invalid('schema1 manifests must be signed');
    const payload = verifySchema1(body, doc.signatures);
    const layers = descriptors(doc.fsLayers, 'fsLayers');
    if (typeof doc.name !== 'string' || typeof doc.tag !== 'string')
      throw invalid('schema1 needs name and tag');
    return {
      kind,
      mediaType,
      declaredType,
      digest: sha256(payload),
      blobs: layers.map((l, i) => {
        const sum = l?.blobSum;
        if (typeof sum !== 'string' || !isDigest(sum)) throw invalid(`fsLayers[${i}] has no valid blobSum`);
        return { digest: sum };
      }),
      manifests: [],
      name: doc.name,
      tag: doc.tag,
    };
  }
  if (doc.schemaVersion !== 2) throw invalid('schemaVersion must be 2');
  const digest = sha256(body);
  const subject = doc.subject === undefined ? undefined : descriptorDigest(doc.subject, 'subject');
  if (doc.artifactType !== undefined && typeof doc.artifactType !== 'string')
    throw invalid('artifactType must be a string');
  const oci = { subject, artifactType: doc.artifactType as string | undefined };
  if (kind === 'index') {
    const children = descriptors(doc.manifests, 'manifests').map((m, i) =>
      descriptorDigest(m, `manifests[${i}]`),
    );
    return { kind, mediaType, declaredType, digest, blobs: [], manifests: children, ...oci };
  }
  const blobs = [blobReference(doc.config, 'config')];
  descriptors(doc.layers, 'layers').forEach((layer, i) => {
    const ref = blobReference(layer, `layers[${i}]`);
    if (!isForeign(layer)) blobs.push(ref);
  });
  // An image manifest's artifact type defaults to its config's media type (OCI image spec 1.1).
  const configType = (doc.config as { mediaType?: unknown }).mediaType;
  const artifactType = oci.artifactType ?? (typeof configType === 'string' ? configType : undefined);
  return { kind, mediaType, declaredType, digest, blobs, manifests: [], subject, artifactType };
}

export type ManifestKind = 'schema1' | 'image' | 'index';

/** What a manifest of this (canonical) media type is, for the checks each kind gets. */
export function manifestKind(canonicalType: string): ManifestKind | undefined {
  if (isSchema1Manifest(canonicalType)) return 'schema1';
  if (isImageManifest(canonicalType)) return 'image';
  if (isImageIndex(canonicalType)) return 'index';
  return undefined;
}

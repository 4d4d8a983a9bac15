// Manifest media types: Docker's, OCI's and the spec's vnd.svc.* twins of the Docker ones.

export const mediaTypes = {
  schema1: 'application/vnd.docker.distribution.manifest.v1+json',
  schema1Signed: 'application/vnd.docker.distribution.manifest.v1+prettyjws',
  schema2: 'application/vnd.docker.distribution.manifest.v2+json',
  manifestList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
} as const;

const dockerPrefix = 'application/vnd.docker.';
const svcPrefix = 'application/vnd.svc.';

/** The Docker name of a vnd.svc.* type (other types are returned unchanged). */
export function canonicalMediaType(type: string): string {
  const bare = type.split(';')[0].trim().toLowerCase();
  return bare.startsWith(svcPrefix) ? dockerPrefix + bare.slice(svcPrefix.length) : bare;
}

/** The vnd.svc.* twin of a Docker type, or undefined when it has none. */
export function svcTwin(type: string): string | undefined {
  return type.startsWith(dockerPrefix) ? svcPrefix + type.slice(dockerPrefix.length) : undefined;
}

export type ManifestKind = 'schema1' | 'image' | 'index';

export function manifestKind(canonicalType: string): ManifestKind | undefined {
  switch (canonicalType) {
    case mediaTypes.schema1:
    case mediaTypes.schema1Signed:
      return 'schema1';
    case mediaTypes.schema2:
    case mediaTypes.ociManifest:
      return 'image';
    case mediaTypes.manifestList:
    case mediaTypes.ociIndex:
      return 'index';
    default:
      return undefined;
  }
}

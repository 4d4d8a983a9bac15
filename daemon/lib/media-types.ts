// Media types of image manifests, indexes, configs and layers: OCI, Docker, and the vnd.svc.*
// twins of the Docker types (ARCHITECTURE.md, "Names"), with helpers that classify them.
import { MANIFEST_ACCEPT_TYPES } from '../api/manifest-accept';

export const MediaTypes = {
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  ociConfig: 'application/vnd.oci.image.config.v1+json',
  ociLayer: 'application/vnd.oci.image.layer.v1.tar',
  ociLayerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
  ociLayerZstd: 'application/vnd.oci.image.layer.v1.tar+zstd',
  ociLayerNondistributable: 'application/vnd.oci.image.layer.nondistributable.v1.tar',
  ociLayerNondistributableGzip: 'application/vnd.oci.image.layer.nondistributable.v1.tar+gzip',
  ociLayout: 'application/vnd.oci.layout.header.v1+json',

  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerManifestList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  dockerSchema1: 'application/vnd.docker.distribution.manifest.v1+json',
  dockerSchema1Signed: 'application/vnd.docker.distribution.manifest.v1+prettyjws',
  dockerConfig: 'application/vnd.docker.container.image.v1+json',
  dockerLayer: 'application/vnd.docker.image.rootfs.diff.tar',
  dockerLayerGzip: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
  dockerLayerForeign: 'application/vnd.docker.image.rootfs.foreign.diff.tar.gzip',
  dockerPluginConfig: 'application/vnd.docker.plugin.v1+json',

  svcManifest: 'application/vnd.svc.distribution.manifest.v2+json',
  svcManifestList: 'application/vnd.svc.distribution.manifest.list.v2+json',
  svcSchema1: 'application/vnd.svc.distribution.manifest.v1+json',
  svcSchema1Signed: 'application/vnd.svc.distribution.manifest.v1+prettyjws',
  svcConfig: 'application/vnd.svc.container.image.v1+json',
  svcLayer: 'application/vnd.svc.image.rootfs.diff.tar',
  svcLayerGzip: 'application/vnd.svc.image.rootfs.diff.tar.gzip',
  svcLayerForeign: 'application/vnd.svc.image.rootfs.foreign.diff.tar.gzip',
} as const;

const svcPrefix = 'application/vnd.svc.';
const dockerPrefix = 'application/vnd.docker.';

/** The Docker type for a vnd.svc.* twin (other types unchanged), so one name is matched below. */
export function canonicalMediaType(mediaType: string): string {
  const bare = mediaType.split(';')[0].trim().toLowerCase();
  return bare.startsWith(svcPrefix) ? dockerPrefix + bare.slice(svcPrefix.length) : bare;
}

/** The vnd.svc.* twin of a Docker type, or undefined when it has none. */
export function svcTwin(mediaType: string): string | undefined {
  const bare = canonicalMediaType(mediaType);
  return bare.startsWith(dockerPrefix) ? svcPrefix + bare.slice(dockerPrefix.length) : undefined;
}

const manifestTypes = new Set<string>([MediaTypes.ociManifest, MediaTypes.dockerManifest]);
const indexTypes = new Set<string>([MediaTypes.ociIndex, MediaTypes.dockerManifestList]);
const schema1Types = new Set<string>([MediaTypes.dockerSchema1, MediaTypes.dockerSchema1Signed]);
const configTypes = new Set<string>([MediaTypes.ociConfig, MediaTypes.dockerConfig]);

export function isImageManifest(mediaType: string): boolean {
  return manifestTypes.has(canonicalMediaType(mediaType));
}

export function isImageIndex(mediaType: string): boolean {
  return indexTypes.has(canonicalMediaType(mediaType));
}

export function isSchema1Manifest(mediaType: string): boolean {
  return schema1Types.has(canonicalMediaType(mediaType));
}

export function isImageConfig(mediaType: string): boolean {
  return configTypes.has(canonicalMediaType(mediaType));
}

export function isLayer(mediaType: string): boolean {
  const bare = canonicalMediaType(mediaType);
  return (
    bare.startsWith('application/vnd.oci.image.layer.') ||
    bare.startsWith('application/vnd.docker.image.rootfs.')
  );
}

/** Foreign/non-distributable layers are never pushed (registries fetch them from their URLs). */
export function isNondistributableLayer(mediaType: string): boolean {
  const bare = canonicalMediaType(mediaType);
  return bare.includes('.nondistributable.') || bare.includes('.foreign.');
}

export type LayerCompression = 'none' | 'gzip' | 'zstd';

export function layerCompression(mediaType: string): LayerCompression {
  const bare = canonicalMediaType(mediaType);
  if (bare.endsWith('+gzip') || bare.endsWith('.tar.gzip')) return 'gzip';
  if (bare.endsWith('+zstd')) return 'zstd';
  return 'none';
}

/** The Accept list for manifest requests: everything we can read, newest first. */
export const manifestAcceptTypes: readonly string[] = [
  ...MANIFEST_ACCEPT_TYPES,
  MediaTypes.dockerSchema1Signed,
  MediaTypes.dockerSchema1,
];

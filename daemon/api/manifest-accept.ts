// The Accept header a registry client sends for a manifest: images and indexes, OCI and Docker,
// and the vnd.svc.* twins svc-registry serves, newest first. Shared by the gateway, the renderer
// and the engine (which reads schema 1 too, lib/media-types).
export const MANIFEST_ACCEPT_TYPES: readonly string[] = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.svc.distribution.manifest.list.v2+json',
  'application/vnd.svc.distribution.manifest.v2+json',
];
export const MANIFEST_ACCEPT = MANIFEST_ACCEPT_TYPES.join(', ');

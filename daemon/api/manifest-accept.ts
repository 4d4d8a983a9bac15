// The Accept header a registry client sends for a manifest: images and indexes, OCI and Docker,
// and the vnd.svc.* twins svc-registry serves. Shared by the gateway and the renderer.
export const MANIFEST_ACCEPT = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.svc.distribution.manifest.list.v2+json',
  'application/vnd.svc.distribution.manifest.v2+json',
].join(', ');

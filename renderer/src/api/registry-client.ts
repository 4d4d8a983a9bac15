// The typed Registry API V2 client, over the gateway's /registry prefix (our svc-registry).
import { getJson, query, request } from './gateway';

const R = '/registry/v2';

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: { architecture: string; os: string };
}

export interface Manifest {
  schemaVersion: number;
  mediaType?: string;
  config?: Descriptor;
  layers?: Descriptor[];
  manifests?: Descriptor[];
}

const MANIFEST_TYPES = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.svc.distribution.manifest.v2+json',
].join(', ');

const path = (repo: string) => repo.split('/').map(encodeURIComponent).join('/');

export const registry = {
  ping: () => request(`${R}/`),
  catalog: (n = 1000, last?: string) =>
    getJson<{ repositories: string[] | null }>(`${R}/_catalog${query({ n, last })}`),
  tags: (repo: string) => getJson<{ name: string; tags: string[] | null }>(`${R}/${path(repo)}/tags/list`),
  manifest: async (repo: string, reference: string) => {
    const res = await request(`${R}/${path(repo)}/manifests/${encodeURIComponent(reference)}`, {
      headers: { Accept: MANIFEST_TYPES },
    });
    const digest = res.headers.get('Svc-Content-Digest') ?? res.headers.get('Docker-Content-Digest') ?? '';
    return {
      digest,
      contentType: res.headers.get('Content-Type') ?? '',
      manifest: (await res.json()) as Manifest,
    };
  },
  config: (repo: string, digest: string) =>
    getJson<Record<string, unknown>>(`${R}/${path(repo)}/blobs/${digest}`),
  // As docker and skopeo send it: "sha256:…" unencoded (a digest has no character that needs it).
  deleteManifest: (repo: string, digest: string) =>
    request(`${R}/${path(repo)}/manifests/${digest}`, { method: 'DELETE' }),
};

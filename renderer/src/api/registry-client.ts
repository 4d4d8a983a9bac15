// The typed Registry API V2 client: `registry` over the gateway's /registry prefix (our
// svc-registry), `registryAt(id)` over /registries/{id} for any registry of the registry browser
// (the gateway signs the requests in with that registry's stored credentials).
import { getJson, query, request } from './gateway';
import { MANIFEST_ACCEPT } from '../../../daemon/api/manifest-accept';
import type { ImageConfig, ManifestDocument } from '../../../daemon/api/manifest-types';
import type { CatalogResponse, TagListResponse } from '../../../daemon/api/registry-types';

const R = '/registry/v2';

/** One page of a paged list, and the `last` of the next page when the Link header names one. */
export interface Page<T> {
  items: T[];
  next?: string;
}

/** `Link: </v2/_catalog?n=50&last=x>; rel="next"` → "x". */
export function nextLast(link: string | null): string | undefined {
  const m = link ? /<([^>]+)>\s*;\s*rel="?next"?/.exec(link) : null;
  return m ? (new URL(m[1], 'http://registry').searchParams.get('last') ?? undefined) : undefined;
}

const path = (repo: string) => repo.split('/').map(encodeURIComponent).join('/');

async function readManifest(res: Response) {
  // svc-registry names its headers Svc-*; other registries Docker-*.
  const digest = res.headers.get('Docker-Content-Digest') ?? res.headers.get('Svc-Content-Digest') ?? '';
  return {
    digest,
    contentType: res.headers.get('Content-Type') ?? '',
    manifest: (await res.json()) as ManifestDocument,
  };
}

/** Registry `id` of the registry browser, through the gateway. */
export function registryAt(id: string) {
  const base = `/registries/${encodeURIComponent(id)}/v2`;
  return {
    catalog: async (n: number, last?: string, signal?: AbortSignal): Promise<Page<string>> => {
      const res = await request(`${base}/_catalog${query({ n, last })}`, { signal });
      const body = (await res.json()) as CatalogResponse;
      return { items: body.repositories ?? [], next: nextLast(res.headers.get('Link')) };
    },
    tags: async (repo: string, n: number, last?: string): Promise<Page<string>> => {
      const res = await request(`${base}/${path(repo)}/tags/list${query({ n, last })}`);
      const body = (await res.json()) as TagListResponse;
      return { items: body.tags ?? [], next: nextLast(res.headers.get('Link')) };
    },
    manifest: async (repo: string, reference: string) =>
      readManifest(
        await request(`${base}/${path(repo)}/manifests/${encodeURIComponent(reference)}`, {
          headers: { Accept: MANIFEST_ACCEPT },
        }),
      ),
    config: (repo: string, digest: string) => getJson<ImageConfig>(`${base}/${path(repo)}/blobs/${digest}`),
    deleteManifest: (repo: string, digest: string) =>
      request(`${base}/${path(repo)}/manifests/${digest}`, { method: 'DELETE' }),
  };
}

/** The embedded registry's catalog and tags, as the pull dialog suggests them. */
export const registry = {
  catalog: (n = 1000, last?: string) => getJson<CatalogResponse>(`${R}/_catalog${query({ n, last })}`),
  tags: (repo: string) => getJson<TagListResponse>(`${R}/${path(repo)}/tags/list`),
};

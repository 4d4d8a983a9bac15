// Server state of the embedded registry (svc-registry): catalog, tags, manifests.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { engine } from '../../api/engine-client';
import { registry } from '../../api/registry-client';
import { useService } from '../../app/use-desktop-state';

function useRegistryUp(): boolean {
  return useService('svc-registry')?.status === 'up';
}

export function useCatalog() {
  const up = useRegistryUp();
  return useQuery({
    queryKey: ['registry', { catalog: true }],
    queryFn: () => registry.catalog(),
    enabled: up,
    // The registry sends the app no events: what was pushed since shows when the screen opens.
    refetchOnMount: 'always',
  });
}

/**
 * Every host/repository:tag the embedded registry holds, as the engine would pull them: the only
 * names worth suggesting when no other registry is reachable.
 */
export function useRegistryReferences() {
  const up = useRegistryUp();
  const endpoint = useService('svc-registry')?.endpoint;
  return useQuery({
    queryKey: ['registry', { references: endpoint }],
    queryFn: async () => {
      const host = new URL(endpoint!).host;
      const repos = (await registry.catalog()).repositories ?? [];
      const tagged = await Promise.all(
        repos.map(async (r) => ((await registry.tags(r)).tags ?? []).map((t) => `${host}/${r}:${t}`)),
      );
      return tagged.flat();
    },
    enabled: up && !!endpoint,
  });
}

export function useTags(repo: string | undefined) {
  return useQuery({ queryKey: ['registry', { repo }], queryFn: () => registry.tags(repo!), enabled: !!repo });
}

export function useManifest(repo: string | undefined, ref: string | undefined) {
  return useQuery({
    queryKey: ['registry', { repo, ref }],
    queryFn: () => registry.manifest(repo!, ref!),
    enabled: !!repo && !!ref,
  });
}

export function useDeleteManifest() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { repo: string; digest: string }) => registry.deleteManifest(v.repo, v.digest),
    onSettled: (_data, _err, v) => {
      // The repository's manifests (by tag or digest) are dropped, not refetched: the deleted
      // one would answer 404 on the screen the user is leaving.
      const isManifestOf = (key: readonly unknown[]) => {
        const k = key[1] as { repo?: string; ref?: string } | undefined;
        return k?.repo === v.repo && k.ref !== undefined;
      };
      qc.removeQueries({ queryKey: ['registry'], predicate: (q) => isManifestOf(q.queryKey) });
      return qc.invalidateQueries({ queryKey: ['registry'] });
    },
  });
}

/** The embedded registry's `host:port`, as image names carry it. */
export function useRegistryHost(): string | undefined {
  const endpoint = useService('svc-registry')?.endpoint;
  return endpoint ? new URL(endpoint).host : undefined;
}

/**
 * Repositories matching `text` through the engine's search (GET /images/search): a term with a
 * registry host searches that registry; a bare word searches the embedded one.
 */
export function useRegistrySearch(text: string) {
  const host = useRegistryHost();
  const trimmed = text.trim().replace(/:[^/:]*$/, '');
  const term = /^[^/]*[.:][^/]*\//.test(trimmed) || !host ? trimmed : `${host}/${trimmed}`;
  return useQuery({
    queryKey: ['registry', { search: term }],
    queryFn: ({ signal }) => engine.search(term, signal),
    enabled: trimmed.length > 0 && /\//.test(term),
    staleTime: 5000,
  });
}

/** The engine's view of a tag in the embedded registry: digest and platforms (GET /distribution). */
export function useDistribution(repo: string, tag: string) {
  const host = useRegistryHost();
  return useQuery({
    queryKey: ['registry', { distribution: `${host}/${repo}:${tag}` }],
    queryFn: () => engine.distribution(`${host}/${repo}:${tag}`),
    enabled: !!host,
  });
}

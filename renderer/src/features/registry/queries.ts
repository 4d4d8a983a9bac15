// Server state of the registry browser: the registries (the embedded svc-registry and those added
// here, /api/registries), each one's catalog and tags page by page, manifests and image configs,
// deletes, and the transfers the main process does (pull into an engine, push from one, copy).
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { create } from 'zustand';
import type {
  AddRegistryRequest,
  RegistryCopyRequest,
  RegistryPullRequest,
  RegistryPushRequest,
  RegistrySummary,
} from '../../../../daemon/api/desktop-types';
import { engine } from '../../api/engine-client';
import type { ImageSummary } from '../../api/engine-types';
import { enginePrefix } from '../../api/engine-target';
import { getJson, request, sendJson } from '../../api/gateway';
import { registry, registryAt } from '../../api/registry-client';
import { useService } from '../../app/state/use-desktop-state';

/** Entries per page of the catalog and of a repository's tags. */
export const PAGE_SIZE = 50;
/** A search reads the whole catalog in pages this large. */
const SEARCH_PAGE = 1000;

function useRegistryUp(): boolean {
  return useService('svc-registry')?.status === 'up';
}

/** Which registry the browser shows, kept across reloads; none chosen means the embedded one. */
const storageKey = 'svc-desktop.registry';
export const useSelectedRegistry = create<{ id: string | undefined }>(() => ({
  id: localStorage.getItem(storageKey) ?? undefined,
}));
useSelectedRegistry.subscribe(({ id }) =>
  id === undefined ? localStorage.removeItem(storageKey) : localStorage.setItem(storageKey, id),
);

/** The registry `id` names; the embedded one (the main process marks it) when that one is gone. */
export function selectedRegistry(
  list: RegistrySummary[],
  id: string | undefined,
): RegistrySummary | undefined {
  return list.find((r) => r.id === id) ?? list.find((r) => r.embedded) ?? list[0];
}

export const registriesKey = ['desktop-registries', {}];

export function useRegistries() {
  return useQuery({ queryKey: registriesKey, queryFn: () => getJson<RegistrySummary[]>('/api/registries') });
}

/** The selected registry's summary (the embedded one when the selection is gone). */
export function useCurrentRegistry(): RegistrySummary | undefined {
  const id = useSelectedRegistry((s) => s.id);
  const list = useRegistries().data;
  return list && selectedRegistry(list, id);
}

export function useAddRegistry() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: AddRegistryRequest) => sendJson<RegistrySummary>('POST', '/api/registries', body),
    onSuccess: (r) => {
      if (r) useSelectedRegistry.setState({ id: r.id });
      return qc.invalidateQueries({ queryKey: registriesKey });
    },
  });
}

export function useRemoveRegistry() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request(`/api/registries/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => {
      useSelectedRegistry.setState({ id: undefined });
      return qc.invalidateQueries({ queryKey: registriesKey });
    },
  });
}

/** The catalog, a page at a time (n/last; the next page named by the Link header). */
export function useCatalog(id: string | undefined) {
  return useInfiniteQuery({
    queryKey: ['registry', { id, catalog: true }],
    queryFn: ({ pageParam }) => registryAt(id!).catalog(PAGE_SIZE, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next,
    enabled: !!id,
    // Registries send the app no events: what was pushed since shows when the screen opens.
    refetchOnMount: 'always',
  });
}

/** Repositories whose name contains `text`, from every page of the catalog. */
export function useCatalogSearch(id: string | undefined, text: string) {
  const term = text.trim().toLowerCase();
  return useQuery({
    queryKey: ['registry', { id, search: term }],
    queryFn: async ({ signal }) => {
      const found: string[] = [];
      let last: string | undefined;
      let pages = 0;
      do {
        const page = await registryAt(id!).catalog(SEARCH_PAGE, last, signal);
        found.push(...page.items.filter((r) => r.toLowerCase().includes(term)));
        last = page.next;
        pages++;
      } while (last);
      return { found, pages };
    },
    enabled: !!id && term.length > 0,
    staleTime: 5000,
  });
}

export function useTags(id: string | undefined, repo: string | undefined) {
  return useInfiniteQuery({
    queryKey: ['registry', { id, repo, tags: true }],
    queryFn: ({ pageParam }) => registryAt(id!).tags(repo!, PAGE_SIZE, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next,
    enabled: !!id && !!repo,
  });
}

export function useManifest(id: string | undefined, repo: string | undefined, ref: string | undefined) {
  return useQuery({
    queryKey: ['registry', { id, repo, ref }],
    queryFn: () => registryAt(id!).manifest(repo!, ref!),
    enabled: !!id && !!repo && !!ref,
  });
}

/** The image config blob (platform, entrypoint, env, history). */
export function useImageConfig(id: string, repo: string, digest: string | undefined) {
  return useQuery({
    queryKey: ['registry', { id, repo, blob: digest }],
    queryFn: () => registryAt(id).config(repo, digest!),
    enabled: !!digest,
    staleTime: Infinity,
  });
}

/** After a delete the repository's manifests and tags are dropped, not refetched: they may 404. */
function useForgetRepository() {
  const qc = useQueryClient();
  return (id: string, repo: string) => {
    qc.removeQueries({
      queryKey: ['registry'],
      predicate: (q) => {
        const k = q.queryKey[1] as { id?: string; repo?: string; ref?: string } | undefined;
        return k?.id === id && k.repo === repo && k.ref !== undefined;
      },
    });
    return qc.invalidateQueries({ queryKey: ['registry'] });
  };
}

export function useDeleteManifest() {
  const forget = useForgetRepository();
  return useMutation({
    mutationFn: (v: { id: string; repo: string; digest: string }) =>
      registryAt(v.id).deleteManifest(v.repo, v.digest),
    onSettled: (_data, _err, v) => forget(v.id, v.repo),
  });
}

/** Deletes one tag; its manifest and the manifest's other tags stay (done main-side). */
export function useDeleteTag() {
  const forget = useForgetRepository();
  return useMutation({
    mutationFn: (v: { id: string; repo: string; tag: string }) =>
      sendJson('POST', `/api/registries/${encodeURIComponent(v.id)}/untag`, {
        repository: v.repo,
        tag: v.tag,
      }),
    onSettled: (_data, _err, v) => forget(v.id, v.repo),
  });
}

/** The images of engine `engineId`, for the push dialog. */
export function useEngineImages(engineId: string) {
  return useQuery({
    queryKey: ['registry', { engineImages: engineId }],
    queryFn: () => getJson<ImageSummary[]>(`${enginePrefix(engineId)}/images/json`),
  });
}

/** A progress stream from the main process: pull, push or copy. */
export const transfers = {
  pull: (id: string, body: RegistryPullRequest, signal: AbortSignal) =>
    stream(`/api/registries/${encodeURIComponent(id)}/pull`, body, signal),
  push: (id: string, body: RegistryPushRequest, signal: AbortSignal) =>
    stream(`/api/registries/${encodeURIComponent(id)}/push`, body, signal),
  copy: (body: RegistryCopyRequest, signal: AbortSignal) => stream('/api/registries/copy', body, signal),
};

function stream(path: string, body: unknown, signal: AbortSignal): Promise<Response> {
  return request(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal,
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

// The engines added in Settings (/api/engines on the gateway), their status, the switch between
// engines and the containers of every engine at once.
import { useMutation, useQueries, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { AddEngineRequest, EngineStatus, EngineSummary } from '../../../../daemon/api/desktop-types';
import type { ContainerSummary, VersionResponse } from '../../api/engine-types';
import { EMBEDDED_ENGINE, enginePrefix, useEngineTarget } from '../../api/engine-target';
import { getJson, request, sendJson } from '../../api/gateway';
import { withoutHelpers } from '../../api/helper-containers';
import { navigate, useRoute } from '../../app/state/router';
import { useTimeline } from '../../app/state/use-engine-events';
import { useEngineUp } from '../../app/state/use-desktop-state';
import { dropEngineAnswers, enginesKey, useEngines } from '../../app/state/engines';

/**
 * Whether the engine answers: its /version through the gateway, or the reason it does not. The
 * embedded engine is asked once the supervisor says it is up (until then the sidebar says why
 * it is not); while it is the engine in use, its answer is the sidebar's own /version, one
 * request for both.
 */
export function useEngineStatus(id: string) {
  const up = useEngineUp();
  const embedded = id === EMBEDDED_ENGINE;
  const inUse = useEngineTarget((s) => s.id) === id;
  const added = useQuery({
    queryKey: ['desktop-engine-status', { id }],
    queryFn: () => getJson<EngineStatus>(`/api/engines/${encodeURIComponent(id)}/status`),
    enabled: !embedded,
  });
  const own = useQuery({
    queryKey: inUse ? ['version', {}] : ['embedded-version', {}],
    queryFn: () => getJson<VersionResponse>('/engine/version'),
    enabled: embedded && up,
    select: (v): EngineStatus => ({ id, up: true, version: v.Version, apiVersion: v.ApiVersion, os: v.Os }),
  });
  return embedded ? own : added;
}

export function useAddEngine() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: AddEngineRequest) => sendJson<EngineSummary>('POST', '/api/engines', body),
    onSuccess: () => qc.invalidateQueries({ queryKey: enginesKey }),
  });
}

export function useRemoveEngine() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => request(`/api/engines/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: (_res, id) => {
      if (useEngineTarget.getState().id === id) selectEngine(qc, EMBEDDED_ENGINE);
      return qc.invalidateQueries({ queryKey: enginesKey });
    },
  });
}

/**
 * Every screen then talks to engine `id`. Cached answers belong to the previous engine (the
 * query keys do not name one): they are dropped and what is on screen is fetched again.
 */
export function selectEngine(qc: QueryClient, id: string): void {
  if (useEngineTarget.getState().id === id) return;
  useEngineTarget.setState({ id });
  useTimeline.setState({ events: [], seen: 0 });
  // A container's page names an object of the other engine.
  const { section, rest } = useRoute.getState();
  if (rest.length) navigate(section);
  dropEngineAnswers(qc);
}

export interface EngineContainers {
  engine: EngineSummary;
  containers?: ContainerSummary[];
  error: unknown;
  pending: boolean;
}

/** The containers of every engine, each engine on its own: one down does not hide the others. */
export function useContainersOfAllEngines(): EngineContainers[] {
  const { all } = useEngines();
  const results = useQueries({
    queries: all.map((e) => ({
      // Under 'containers': the selected engine's events refresh this view as they do its list.
      queryKey: ['containers', { engine: e.id, combined: true }],
      queryFn: async () =>
        withoutHelpers(await getJson<ContainerSummary[]>(`${enginePrefix(e.id)}/containers/json?all=1`)),
      retry: false,
    })),
  });
  return all.map((engine, i) => ({
    engine,
    containers: results[i].data,
    error: results[i].error,
    pending: results[i].isPending,
  }));
}

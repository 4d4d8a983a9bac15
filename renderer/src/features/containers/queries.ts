// Server state of containers: list and inspect, refreshed by engine events (never polled).
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { engine, type ContainerAction } from '../../api/engine-client';
import { ApiError, getJson, jsonLines } from '../../api/gateway';
import { containerName } from '../../app/ui/format';
import type { ContainerCreateBody, JsonMessage } from '../../api/engine-types';
import { usePending } from './store';
import { useContainers } from '../../app/state/engine-lists';
import { useEngineUp } from '../../app/state/use-desktop-state';
import { fold, splitTag, type Progress } from '../../api/pull-progress';

export function useContainer(id: string) {
  const up = useEngineUp();
  return useQuery({ queryKey: ['container', { id }], queryFn: () => engine.inspect(id), enabled: up });
}

export interface BulkResult {
  id: string;
  error?: unknown;
}

/** One action over many containers; each failure is kept and shown, none stops the rest. */
export function useBulkAction() {
  const qc = useQueryClient();
  const { begin, end } = usePending.getState();
  return useMutation({
    onMutate: ({ ids, action }) => begin(ids, action),
    mutationFn: async ({ ids, action }: { ids: string[]; action: ContainerAction | 'remove' }) => {
      const results = await Promise.allSettled(
        ids.map((id) => (action === 'remove' ? engine.remove(id, true) : engine.action(id, action))),
      );
      return results.map((r, i): BulkResult => ({
        id: ids[i],
        error: r.status === 'rejected' ? r.reason : undefined,
      }));
    },
    // The transition shows until the list says where the containers ended up.
    onSettled: async (_r, _e, { ids }) => {
      await qc.invalidateQueries({ queryKey: ['containers'] });
      await qc.invalidateQueries({ queryKey: ['container'] });
      end(ids);
    },
  });
}

/** Pulls `image`, folding the progress for the caller; a failed pull throws its message. */
async function pullFirst(image: string, onPull: (p: Progress) => void, signal: AbortSignal): Promise<void> {
  const [repo, tag] = splitTag(image);
  let p: Progress = { layers: [], messages: [] };
  onPull(p);
  for await (const m of jsonLines<JsonMessage>(await engine.pull(repo, tag, signal)))
    onPull((p = fold(p, m)));
  if (p.error) throw new Error(`Could not pull ${image}: ${p.error}`);
}

/**
 * As `docker run`: create, and when the engine lacks the image, pull it and create again; then
 * the networks after the first are connected (create takes one) and the container started.
 */
export function useRunContainer(onPull: (p: Progress) => void, signal: AbortSignal) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({
      body,
      name,
      networks = [],
    }: {
      body: ContainerCreateBody;
      name?: string;
      networks?: { name: string; aliases: string[] }[];
    }) => {
      const create = () => engine.create(body, name);
      const created = await create().catch(async (err: unknown) => {
        if (!(err instanceof ApiError && err.status === 404 && /no such image/i.test(err.message))) throw err;
        await pullFirst(body.Image!, onPull, signal);
        void qc.invalidateQueries({ queryKey: ['images'] });
        return create();
      });
      for (const n of networks)
        await engine.connect(n.name, { Container: created!.Id, EndpointConfig: { Aliases: n.aliases } });
      await engine.action(created!.Id, 'start');
      return created!;
    },
    onSettled: () => qc.invalidateQueries({ queryKey: ['containers'] }),
  });
}

/** Whether published ports take effect: an engine without the networks API publishes none. */
export function usePortPublishing() {
  const up = useEngineUp();
  return useQuery({
    queryKey: ['engine-features', { networks: true }],
    queryFn: engine.hasNetworks,
    enabled: up,
  });
}

/**
 * Why each host port of `ports` cannot be published, by port: held by a container of this
 * engine (its own list says so), or, for an engine on this machine, taken by something else
 * (the gateway listens on it for a moment). Another machine's ports are not checked here.
 */
export function useHostPortProblems(ports: number[], onThisMachine: boolean): Map<number, string> {
  const up = useEngineUp();
  const containers = useContainers(true);
  const checks = useQueries({
    queries: ports.map((port) => ({
      queryKey: ['host-port', { port }],
      queryFn: () => getJson<{ port: number; free: boolean; reason?: string }>(`/api/host-ports/${port}`),
      enabled: up && onThisMachine,
      staleTime: 2000,
    })),
  });
  const problems = new Map<number, string>();
  for (const c of containers.data ?? [])
    for (const p of c.Ports)
      if (p.PublicPort && ports.includes(p.PublicPort) && c.State === 'running')
        problems.set(
          p.PublicPort,
          `port ${p.PublicPort} is published by container ${containerName(c.Names, c.Id)}`,
        );
  for (const q of checks)
    if (q.data && !q.data.free && !problems.has(q.data.port))
      problems.set(q.data.port, q.data.reason ?? 'in use');
  return problems;
}

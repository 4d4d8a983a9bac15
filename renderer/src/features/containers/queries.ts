// Server state of containers: list and inspect, refreshed by engine events (never polled).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { engine, type ContainerAction } from '../../api/engine-client';
import type { ContainerCreateBody } from '../../api/engine-types';
import { useEngineUp } from '../../app/use-desktop-state';

export function useContainers(all: boolean) {
  const up = useEngineUp();
  return useQuery({ queryKey: ['containers', { all }], queryFn: () => engine.containers(all), enabled: up });
}

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
  return useMutation({
    mutationFn: async ({ ids, action }: { ids: string[]; action: ContainerAction | 'remove' }) => {
      const results = await Promise.allSettled(
        ids.map((id) => (action === 'remove' ? engine.remove(id, true) : engine.action(id, action))),
      );
      return results.map((r, i): BulkResult => ({
        id: ids[i],
        error: r.status === 'rejected' ? r.reason : undefined,
      }));
    },
    onSettled: () => qc.invalidateQueries({ queryKey: ['containers'] }),
  });
}

export function useRunContainer() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ body, name }: { body: ContainerCreateBody; name?: string }) => {
      const created = await engine.create(body, name);
      await engine.action(created!.Id, 'start');
      return created!;
    },
    onSettled: () => qc.invalidateQueries({ queryKey: ['containers'] }),
  });
}

// Server state of containers: list and inspect, refreshed by engine events (never polled).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { engine, type ContainerAction } from '../../api/engine-client';
import { ApiError, jsonLines } from '../../api/gateway';
import type { ContainerCreateBody, JsonMessage } from '../../api/engine-types';
import { fold, type Progress } from '../images/progress';
import { splitTag } from '../images/components/progress-dialog';
import { usePending } from './store';
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

/** As `docker run`: create, and when the engine lacks the image, pull it and create again. */
export function useRunContainer(onPull: (p: Progress) => void, signal: AbortSignal) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ body, name }: { body: ContainerCreateBody; name?: string }) => {
      const create = () => engine.create(body, name);
      const created = await create().catch(async (err: unknown) => {
        if (!(err instanceof ApiError && err.status === 404 && /no such image/i.test(err.message))) throw err;
        await pullFirst(body.Image!, onPull, signal);
        void qc.invalidateQueries({ queryKey: ['images'] });
        return create();
      });
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

// Server state of the swarm screen. Tasks move on their own (scheduled, started, failed) without
// an event for each: while the screen is open its lists are read again every two seconds.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { engine } from '../../api/engine-client';
import { useEngineUp } from '../../app/state/use-desktop-state';
import { swarm, type ObjectKind } from './swarm-api';

const every = 2000;
const swarmStateEvery = 5000;

/**
 * Read again every few seconds while shown: no event announces that the engine joined or left a
 * swarm (a `docker swarm init` or `leave` in a terminal), and the screen follows it.
 */
export function useSwarmInfo() {
  const up = useEngineUp();
  return useQuery({
    queryKey: ['swarm', 'info'],
    queryFn: engine.info,
    enabled: up,
    refetchInterval: swarmStateEvery,
  });
}

export function useServices(enabled: boolean) {
  return useQuery({
    queryKey: ['swarm', 'services'],
    queryFn: swarm.services,
    enabled,
    refetchInterval: every,
  });
}

export function useTasks(serviceId: string) {
  return useQuery({
    queryKey: ['swarm', 'tasks', serviceId],
    queryFn: () => swarm.tasks(serviceId),
    refetchInterval: every,
  });
}

export function useNodes() {
  return useQuery({ queryKey: ['swarm', 'nodes'], queryFn: swarm.nodes, refetchInterval: every });
}

export function useSwarmObjects(kind: ObjectKind) {
  return useQuery({ queryKey: ['swarm', kind], queryFn: () => swarm.objects(kind) });
}

/** A change to the swarm; every swarm list is read again after it. */
export function useSwarmChange<T>(fn: (arg: T) => Promise<unknown>) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: fn, onSettled: () => qc.invalidateQueries({ queryKey: ['swarm'] }) });
}

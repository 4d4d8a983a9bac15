// Server state of networks: each network inspected (the list has no Containers field), the
// engine's swarm role (overlay needs a manager), and the changes, refreshed by network events.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { engine } from '../../api/engine-client';
import type { NetworkConnectBody, NetworkCreateBody } from '../../api/engine-types';
import { useEngineUp } from '../../app/state/use-desktop-state';

/**
 * Whether the engine is a swarm manager, where overlay networks can be made: the Swarm screen's
 * read of /info, made again each time a dialog asks (nothing announces a `docker swarm init`).
 */
export function useSwarmManager() {
  const up = useEngineUp();
  return useQuery({
    queryKey: ['swarm', 'info'],
    queryFn: engine.info,
    enabled: up,
    refetchOnMount: 'always',
    select: (info) => !!info.Swarm?.ControlAvailable,
  });
}

export function useNetworkMutations() {
  const qc = useQueryClient();
  const onSettled = async () => {
    await qc.invalidateQueries({ queryKey: ['networks'] });
    await qc.invalidateQueries({ queryKey: ['containers'] });
  };
  return {
    create: useMutation({ mutationFn: (b: NetworkCreateBody) => engine.createNetwork(b), onSettled }),
    remove: useMutation({ mutationFn: (id: string) => engine.removeNetwork(id), onSettled }),
    prune: useMutation({ mutationFn: () => engine.pruneNetworks(), onSettled }),
    connect: useMutation({
      mutationFn: ({ network, body }: { network: string; body: NetworkConnectBody }) =>
        engine.connect(network, body),
      onSettled,
    }),
    disconnect: useMutation({
      mutationFn: ({ network, container }: { network: string; container: string }) =>
        engine.disconnect(network, container),
      onSettled,
    }),
  };
}

/** The networks Docker makes itself: never removed, never pruned. */
export const builtinNetworks = ['bridge', 'host', 'none'];

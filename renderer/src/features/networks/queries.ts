import { useQuery } from '@tanstack/react-query';
import { engine } from '../../api/engine-client';
import { useEngineUp } from '../../app/use-desktop-state';

/** The list has no Containers field; each network's inspect does. */
export function useNetworks() {
  const up = useEngineUp();
  return useQuery({
    queryKey: ['networks', {}],
    queryFn: async () => Promise.all((await engine.networks()).map((n) => engine.network(n.Id))),
    enabled: up,
  });
}

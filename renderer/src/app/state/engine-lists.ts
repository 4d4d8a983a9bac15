// The engine's lists more than one screen reads (containers, images, networks), in the react-query
// cache every screen shares; each screen's own queries and changes stay in its feature.
import { useQuery } from '@tanstack/react-query';
import { engine } from '../../api/engine-client';
import { useEngineUp } from './use-desktop-state';

export function useContainers(all: boolean) {
  const up = useEngineUp();
  return useQuery({ queryKey: ['containers', { all }], queryFn: () => engine.containers(all), enabled: up });
}

export function useImages() {
  const up = useEngineUp();
  return useQuery({ queryKey: ['images', {}], queryFn: engine.images, enabled: up });
}

/** Each network inspected: the list has no Containers field. */
export function useNetworks() {
  const up = useEngineUp();
  return useQuery({
    queryKey: ['networks', {}],
    queryFn: async () => Promise.all((await engine.networks()).map((n) => engine.network(n.Id))),
    enabled: up,
  });
}

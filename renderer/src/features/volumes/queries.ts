import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { engine } from '../../api/engine-client';
import { useEngineUp } from '../../app/use-desktop-state';

export function useVolumes() {
  const up = useEngineUp();
  return useQuery({ queryKey: ['volumes', {}], queryFn: engine.volumes, enabled: up });
}

export function useVolumeMutations() {
  const qc = useQueryClient();
  const onSettled = () => qc.invalidateQueries({ queryKey: ['volumes'] });
  return {
    create: useMutation({ mutationFn: engine.createVolume, onSettled }),
    remove: useMutation({ mutationFn: engine.removeVolume, onSettled }),
  };
}

// Server state of volumes: the list, their sizes (from /system/df) and the containers using each,
// refreshed by volume and container events.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { engine } from '../../api/engine-client';
import { useEngineUp } from '../../app/state/use-desktop-state';
import { containerName } from '../../app/ui/format';
import { reapHelpers } from './volume-helper';
import { useContainers } from '../../app/state/engine-lists';

export function useVolumes() {
  const up = useEngineUp();
  return useQuery({ queryKey: ['volumes', {}], queryFn: engine.volumes, enabled: up });
}

/** Bytes each volume holds, by name; sizing walks the volumes, so it is its own query. */
export function useVolumeSizes() {
  const up = useEngineUp();
  return useQuery({
    queryKey: ['volumes', { usage: true }],
    queryFn: async () =>
      new Map((await engine.volumeUsage()).Volumes?.map((v) => [v.Name, v.UsageData?.Size ?? -1]) ?? []),
    enabled: up,
  });
}

export interface VolumeUser {
  id: string;
  name: string;
}

/** The containers using each volume, from the container list every screen shares. */
export function useVolumeUsers(): Map<string, VolumeUser[]> {
  const containers = useContainers(true);
  const users = new Map<string, VolumeUser[]>();
  for (const c of containers.data ?? []) {
    for (const m of c.Mounts ?? []) {
      if (m.Type !== 'volume' || !m.Name) continue;
      users.set(m.Name, [...(users.get(m.Name) ?? []), { id: c.Id, name: containerName(c.Names, c.Id) }]);
    }
  }
  return users;
}

export function useVolumeMutations() {
  const qc = useQueryClient();
  const onSettled = () => qc.invalidateQueries({ queryKey: ['volumes'] });
  return {
    create: useMutation({
      mutationFn: (v: Parameters<typeof engine.createVolume>[0]) => engine.createVolume(v),
      onSettled,
    }),
    // A volume browser's container left behind would keep its volume in use: it goes first.
    remove: useMutation({
      mutationFn: async (name: string) => (await reapHelpers(name), engine.removeVolume(name)),
      onSettled,
    }),
    prune: useMutation({
      mutationFn: async () => (await reapHelpers(), engine.pruneVolumes()),
      onSettled,
    }),
  };
}

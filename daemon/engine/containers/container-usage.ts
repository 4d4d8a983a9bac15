// The container-usage view over the registry of containers: what volumes, networks, images and
// /info ask of the containers, answered from the records (and, for an image's layers, by the
// rootfs layers the containers share).
import type { ContainerUsage } from '../shared/container-usage';
import type { ContainerRegistry } from './container-registry';
import type { ContainerRootfs } from './container-rootfs';
import { isRunning } from './container-state';

export function containerUsageOf(
  registry: ContainerRegistry,
  rootfs: Pick<ContainerRootfs, 'releaseInitLayer'>,
): ContainerUsage {
  return {
    volumeUsers: (name) =>
      registry
        .all()
        .filter((c) => c.record.Mounts.some((m) => m.Type === 'volume' && m.Name === name))
        .map((c) => ({ id: c.id, running: isRunning(c.record.State) || c.starting })),
    networkMembers: (networkId) =>
      registry.all().flatMap((c) => {
        const name = Object.entries(c.record.Networks ?? {}).find(([, a]) => a.NetworkID === networkId)?.[0];
        if (name === undefined) return [];
        return [
          {
            id: c.id,
            name: c.record.Name.slice(1),
            aliases: c.record.Networks?.[name]?.Aliases ?? [],
            links: c.record.Networks?.[name]?.Links ?? [],
            running: isRunning(c.record.State),
            endpoint: c.record.Endpoints?.[name],
          },
        ];
      }),
    imageUsers: (imageId) =>
      registry
        .all()
        .filter((c) => c.record.Image === imageId)
        .map((c) => c.id),
    releaseImageLayers: (chainId) => rootfs.releaseInitLayer(chainId),
    counts: () => {
      const all = registry.all();
      const paused = all.filter((c) => c.record.State.Paused).length;
      const running = all.filter((c) => isRunning(c.record.State) && !c.record.State.Paused).length;
      return { total: all.length, running, paused, stopped: all.length - running - paused };
    },
  };
}

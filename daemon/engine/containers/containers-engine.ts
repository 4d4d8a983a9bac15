// Assembles the containers engine for svcd: the service over containerd, tied to the image
// store (image resolution and commit one way, "which containers use this image" the other).
import type { ContainerSummary } from '../../api/container-summary-types';
import type { Volume } from '../../api/volume-types';
import type { Logger } from '../../lib/logger';
import type { ContainerdClient } from '../../runtime/containerd/client';
import { readHostFacts } from '../../runtime/oci-spec/host-facts';
import type { ImageConfigLike } from '../../runtime/oci-spec/image-config';
import type { EventsService } from '../events/events-service';
import type { ImageService } from '../images/image-service';
import { commitContainer } from './container-commit';
import { ContainersService } from './containers-service';

export interface ContainersEngineDeps {
  client: ContainerdClient;
  dataRoot: string;
  events: EventsService;
  images: ImageService;
  log: Logger;
}

export async function startContainersEngine(deps: ContainersEngineDeps): Promise<ContainersService> {
  const service = new ContainersService({
    client: deps.client,
    dataRoot: deps.dataRoot,
    events: deps.events,
    host: await readHostFacts(),
    images: {
      resolveForContainer: async (ref) => {
        const image = await deps.images.resolveForContainer(ref);
        return {
          id: image.id,
          name: image.name,
          chainId: image.chainId,
          unpack: image.unpack,
          config: (image.config.config ?? {}) as ImageConfigLike,
        };
      },
    },
    commit: (ctx, container, opts) => commitContainer(ctx, deps.images, container, opts),
    log: deps.log,
  });
  deps.images.setContainerUsage({ imageUsers: async (imageId) => service.imageUsers(imageId) });
  await service.init();
  return service;
}

/** GET /system/df's volumes: each local volume, its size and how many containers mount it. */
export async function volumesForDiskUsage(service: ContainersService): Promise<Volume[]> {
  const mounted = service.ctx.registry
    .all()
    .flatMap((c) => c.record.Mounts.filter((m) => m.Type === 'volume').map((m) => m.Name));
  return (await service.ctx.volumes.list()).map((v) => ({
    Name: v.Name,
    Driver: 'local',
    Mountpoint: v.Mountpoint,
    CreatedAt: v.CreatedAt,
    Labels: {},
    Scope: 'local',
    Options: {},
    UsageData: { Size: v.Size, RefCount: mounted.filter((name) => name === v.Name).length },
  }));
}

/** GET /system/df's containers: every container with its sizes. */
export function containersForDiskUsage(service: ContainersService): Promise<ContainerSummary[]> {
  return service.list({ all: true, size: true, filters: new Map() });
}

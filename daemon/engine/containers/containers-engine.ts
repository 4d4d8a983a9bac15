// What ties the containers engine to the image store (image resolution and commit) and to
// GET /system/df; svcd's composition root wires them.
import type { ContainerSummary } from '../../api/container-summary-types';
import type { ImageConfigLike } from '../../runtime/oci-spec/image-config';
import type { ImageService } from '../images/image-service';
import { commitContainer } from './container-commit';
import type { ContainerImageStore } from './container-images';
import type { ContainersService, ContainersServiceDeps } from './containers-service';

/** The image store as containers see it: resolution to an image's ID, layers and config. */
export function containerImagesOf(images: ImageService): ContainerImageStore {
  return {
    resolveForContainer: async (ref) => {
      const image = await images.resolveForContainer(ref);
      return {
        id: image.id,
        name: image.name,
        chainId: image.chainId,
        unpack: image.unpack,
        config: (image.config.config ?? {}) as ImageConfigLike,
      };
    },
  };
}

/** POST /commit's image side: the container's layer added to the image store. */
export function commitInto(images: ImageService): ContainersServiceDeps['commit'] {
  return (ctx, container, opts, step) => commitContainer(ctx, images, container, opts, step);
}

/** GET /system/df's containers: every container with its sizes. */
export function containersForDiskUsage(service: ContainersService): Promise<ContainerSummary[]> {
  return service.list({ all: true, size: true, filters: new Map() });
}

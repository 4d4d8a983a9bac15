// What ties the containers engine to the image store (image resolution and commit) and to
// GET /system/df; svcd's composition root and the builder's ports wire them.
import type { ContainerSummary } from '../../api/container-summary-types';
import type { ImageConfigLike } from '../../runtime/oci-spec/image-config';
import { commitImage, type CommitSource } from '../images/image-commit';
import type { ImageService } from '../images/image-service';
import type { Container } from './container';
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

/** What a commit reads of the container. */
export function commitSourceOf(container: Container): CommitSource {
  const r = container.record;
  return {
    id: container.id,
    image: r.Image,
    initSnapshotKey: r.InitSnapshotKey,
    config: r.Config,
    command: [r.Path, ...r.Args].join(' '),
  };
}

/** POST /commit's image side: the container's layer added to the image store. */
export function commitInto(images: ImageService): ContainersServiceDeps['commit'] {
  return (container, opts) => commitImage(images, commitSourceOf(container), opts);
}

/** GET /system/df's containers: every container with its sizes. */
export function containersForDiskUsage(service: ContainersService): Promise<ContainerSummary[]> {
  return service.list({ all: true, size: true, filters: new Map() });
}

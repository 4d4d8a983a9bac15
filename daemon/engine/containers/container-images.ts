// What the containers engine needs from the image store, declared here where it is consumed.
import type { ImageConfigLike } from '../../runtime/oci-spec/image-config';

export interface ImageForContainer {
  /** Image ID: the config digest. */
  id: string;
  /** The reference as the user gave it, normalised (e.g. busybox:latest). */
  name: string;
  config: ImageConfigLike;
  /** The committed snapshot of the image's top layer, the parent of the container's layers. */
  chainId: string;
  /** Makes sure that snapshot exists (it is checked only when no container stands on it yet). */
  unpack: () => Promise<unknown>;
}

export interface ContainerImageStore {
  /** Throws NotFoundError (`No such image: x`) when the image is absent. */
  resolveForContainer(ref: string): Promise<ImageForContainer>;
}

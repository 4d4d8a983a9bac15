// What the services containers use (volumes, networks, images, /info) ask of the containers:
// which of them use a volume, a network or an image, and how many there are. The containers
// engine answers from its registry (and its rootfs layers), which svcd builds before any of
// these services.

/** A container whose mounts name a volume; one still starting counts as running. */
export interface VolumeUser {
  id: string;
  running: boolean;
}

/** A container attached to a network, as the containers engine reports it. */
export interface NetworkMember {
  id: string;
  name: string;
  aliases: string[];
  /** The links of its endpoint on the network (`target[:alias]`): names only it resolves. */
  links: string[];
  running: boolean;
  endpoint?: {
    EndpointID: string;
    MacAddress: string;
    IPAddress: string;
    IPPrefixLen: number;
    GlobalIPv6Address?: string;
    GlobalIPv6PrefixLen?: number;
  };
}

/** GET /info's container counts. */
export interface ContainerCounts {
  total: number;
  running: number;
  paused: number;
  stopped: number;
}

export interface ContainerUsage {
  volumeUsers(name: string): VolumeUser[];
  /** The containers configured on the network, with their endpoint while they run. */
  networkMembers(networkId: string): NetworkMember[];
  /** IDs of the containers made from the image: the image store refuses to delete it (409). */
  imageUsers(imageId: string): string[];
  /**
   * Lets go now of what the containers keep of an image's layers after the last of them went
   * (the init layer on its top snapshot lingers a while): an image deleted then frees its layers
   * at once, and its removal or prune can say how much. A layer a container stands on stays.
   */
  releaseImageLayers(chainId: string): Promise<void>;
  counts(): ContainerCounts;
}

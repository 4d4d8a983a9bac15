// What every part of the containers engine shares: the containerd client, the on-disk layout,
// the registry of containers, the event feed and the host's facts.
import type { EventsService } from '../events/events-service';
import type { Logger } from '../../lib/logger';
import type { ContainerdClient } from '../../runtime/containerd/client';
import { runcOptions } from '../../runtime/containerd/runc-options';
import { RuncState } from '../../runtime/containerd/runc-state';
import { ShimTasks } from '../../runtime/containerd/shim-tasks';
import type { WireAny } from '../../runtime/containerd/types';
import type { HostFacts } from '../../runtime/oci-spec/host-facts';
import type { SeccompChoice } from '../../runtime/oci-spec/seccomp';
import { JsonStore } from '../store/json-store';
import type { Container } from './container';
import type { ContainerImageStore } from './container-images';
import { ContainerPaths } from './container-paths';
import type { ContainerRecord } from './container-record';
import type { ContainerRegistry } from './container-registry';
import type { ContainerRootfs } from './container-rootfs';
import type { VolumesService } from '../volumes/volumes-service';
import type { ContainerNetworking } from '../networks/container-networking';

export interface EngineContext {
  client: ContainerdClient;
  /** Options of every task svcd creates: runc's state root of this svcd's own (runc-options.ts). */
  taskOptions: WireAny;
  /** runc's state of those tasks, for what containerd lost track of. */
  runcState: RuncState;
  /** The tasks' shims, asked directly for what containerd only relays (exec processes). */
  shims: ShimTasks;
  paths: ContainerPaths;
  store: JsonStore<ContainerRecord>;
  registry: ContainerRegistry;
  events: EventsService;
  host: HostFacts;
  /** The daemon's seccomp profile (--seccomp-profile); Docker's default when absent. */
  defaultSeccomp?: SeccompChoice;
  images: ContainerImageStore;
  rootfs: ContainerRootfs;
  volumes: ContainerVolumes;
  networking: ContainerNetworking;
  log: Logger;
}

/** What containers need of the volumes service: their volumes made, reserved, mounted and removed. */
export type ContainerVolumes = Pick<
  VolumesService,
  'resolve' | 'settle' | 'prepare' | 'release' | 'lend' | 'giveBack' | 'removeAnonymous'
>;

export interface EngineContextDeps {
  client: ContainerdClient;
  dataRoot: string;
  /** runc's state root for this svcd's tasks. */
  runcRoot: string;
  /** containerd's state directory (its task bundles). */
  containerdState: string;
  events: EventsService;
  host: HostFacts;
  defaultSeccomp?: SeccompChoice;
  /** Built first, so that volumes, networks and images can be given its usage view (container-usage.ts). */
  registry: ContainerRegistry;
  /** Built first too: the usage view lets images release the init layers it keeps. */
  rootfs: ContainerRootfs;
  images: ContainerImageStore;
  volumes: ContainerVolumes;
  networking: ContainerNetworking;
  log: Logger;
}

/** The context over the data root's containers directory; nothing is read until init. */
export function createEngineContext(deps: EngineContextDeps): EngineContext {
  const paths = new ContainerPaths(deps.dataRoot);
  return {
    client: deps.client,
    taskOptions: runcOptions(deps.runcRoot),
    runcState: new RuncState(deps.runcRoot, deps.containerdState, deps.client.namespace),
    shims: new ShimTasks(deps.containerdState, deps.client.namespace),
    paths,
    store: new JsonStore<ContainerRecord>(paths.containersDir),
    registry: deps.registry,
    events: deps.events,
    host: deps.host,
    defaultSeccomp: deps.defaultSeccomp,
    images: deps.images,
    rootfs: deps.rootfs,
    volumes: deps.volumes,
    networking: deps.networking,
    log: deps.log,
  };
}

export function saveRecord(ctx: EngineContext, container: Container): Promise<void> {
  return ctx.store.put(container.id, container.record);
}

/** Publishes a container event with Docker's attributes: image, name and the labels. */
export function publishContainerEvent(
  ctx: Pick<EngineContext, 'events'>,
  container: Container,
  action: string,
  extra: Record<string, string> = {},
): void {
  const r = container.record;
  ctx.events.publish('container', action, {
    id: r.Id,
    attributes: { ...(r.Config.Labels ?? {}), image: r.Config.Image ?? '', name: r.Name.slice(1), ...extra },
  });
}

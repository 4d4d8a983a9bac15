// What every part of the containers engine shares: the containerd client, the on-disk layout,
// the registry of containers, the event feed and the host's facts.
import type { EventsService } from '../events/events-service';
import type { Logger } from '../../lib/logger';
import type { ContainerdClient } from '../../runtime/containerd/client';
import type { HostFacts } from '../../runtime/oci-spec/host-facts';
import { JsonStore } from '../store/json-store';
import type { Container } from './container';
import type { ContainerImageStore } from './container-images';
import type { ContainerPaths } from './container-paths';
import type { ContainerRecord } from './container-record';
import type { ContainerRegistry } from './container-registry';
import type { ContainerRootfs } from './container-rootfs';
import type { LocalVolumes } from './local-volumes';

export interface EngineContext {
  client: ContainerdClient;
  paths: ContainerPaths;
  store: JsonStore<ContainerRecord>;
  registry: ContainerRegistry;
  events: EventsService;
  host: HostFacts;
  images: ContainerImageStore;
  rootfs: ContainerRootfs;
  volumes: LocalVolumes;
  log: Logger;
}

export function saveRecord(ctx: EngineContext, container: Container): Promise<void> {
  return ctx.store.put(container.id, container.record);
}

/** Publishes a container event with Docker's attributes: image, name and the labels. */
export function publishContainerEvent(
  ctx: EngineContext,
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

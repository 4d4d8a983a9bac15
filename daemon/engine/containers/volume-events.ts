// Docker's volume events for the volumes containers use (the volumes service announces `create`
// and `destroy`): `mount` when a container using it starts and `unmount` when it stops. Binds
// and tmpfs mounts are not volumes and have none.
import type { EventsService } from '../events/events-service';
import type { Container } from './container';

const driver = 'local';

/** The volumes a container mounts, by name. */
export function volumeNames(container: Container): string[] {
  return container.record.Mounts.flatMap((m) => (m.Type === 'volume' ? [m.Name] : []));
}

/** One event per volume the container mounts: `mount` before its start, `unmount` after its exit. */
export function publishVolumeMounts(
  events: EventsService,
  container: Container,
  action: 'mount' | 'unmount',
): void {
  for (const m of container.record.Mounts) {
    if (m.Type !== 'volume') continue;
    const attributes: Record<string, string> = { container: container.id, driver };
    if (action === 'mount') {
      attributes.destination = m.Destination;
      attributes.propagation = '';
      attributes['read/write'] = String(!m.ReadOnly);
    }
    events.publish('volume', action, { id: m.Name, attributes });
  }
}

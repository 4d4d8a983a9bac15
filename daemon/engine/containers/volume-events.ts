// Docker's volume events for the local volumes containers make and use: `create` and `destroy`
// with the volume, `mount` when a container using it starts and `unmount` when it stops. Binds
// and tmpfs mounts are not volumes and have none.
import type { EventsService } from '../events/events-service';
import type { Container } from './container';

const driver = 'local';

export function publishVolumeEvent(events: EventsService, action: 'create' | 'destroy', name: string): void {
  events.publish('volume', action, { id: name, attributes: { driver } });
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

import type { EngineEvent } from '../../../api/event-types';
import type { EventSubscription } from '../../../engine/events/events-service';

export interface EventsBackend {
  subscribe(sub: EventSubscription): AsyncIterable<EngineEvent>;
}

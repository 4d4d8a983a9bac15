import type { EngineEvent, EventSubscription } from '../../../api/event-types';

export interface EventsBackend {
  /** Refuses unknown filters at once (400), before anything is written. */
  subscribe(sub: EventSubscription): AsyncIterable<EngineEvent>;
}

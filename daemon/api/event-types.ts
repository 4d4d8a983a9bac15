// The wire shape of one /events message (API 1.41).
import type { Filters } from './filters';

export type EventType =
  | 'container'
  | 'image'
  | 'volume'
  | 'network'
  | 'daemon'
  | 'plugin'
  | 'builder'
  | 'service'
  | 'node'
  | 'secret'
  | 'config';

export interface EventActor {
  ID: string;
  Attributes: Record<string, string>;
}

export interface EngineEvent {
  Type: EventType;
  Action: string;
  Actor: EventActor;
  /** `swarm` for the cluster's objects (services, nodes, secrets, configs, swarm networks). */
  scope: 'local' | 'swarm';
  time: number;
  timeNano: number;
  /** Legacy fields kept on container and image events. */
  status?: string;
  id?: string;
  from?: string;
}

/** What a GET /events subscriber asked for. */
export interface EventSubscription {
  /** Unix time in nanoseconds; events at or after it are replayed from the journal. */
  sinceNano?: bigint;
  /** Unix time in nanoseconds; the stream ends once it is past. */
  untilNano?: bigint;
  filters: Filters;
  signal: AbortSignal;
}

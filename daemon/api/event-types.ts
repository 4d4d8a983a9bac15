// The wire shape of one /events message (API 1.41).

export type EventType = 'container' | 'image' | 'volume' | 'network' | 'daemon' | 'plugin' | 'builder';

export interface EventActor {
  ID: string;
  Attributes: Record<string, string>;
}

export interface EngineEvent {
  Type: EventType;
  Action: string;
  Actor: EventActor;
  scope: 'local';
  time: number;
  timeNano: number;
  /** Legacy fields kept on container and image events. */
  status?: string;
  id?: string;
  from?: string;
}

// The engine's event feed: every operation publishes here; /events replays a bounded journal
// for `since` and then streams live events until `until` or the subscriber leaves.
import type { EngineEvent, EventActor, EventSubscription, EventType } from '../../api/event-types';
import { checkEventFilters, eventMatches } from './event-filter';

const journalSize = 10_000;
/** Nanoseconds between stamps: doubles hold multiples of 1024 exactly up to 2^63 ns. */
const stampStep = 1024n;

type Listener = (e: EngineEvent) => void;

export class EventsService {
  private readonly journal: EngineEvent[] = [];
  private readonly listeners = new Set<Listener>();
  /** The last event's time: a later event is never stamped earlier, so the journal stays in order. */
  private lastNano = 0n;

  get listenerCount(): number {
    return this.listeners.size;
  }

  publish(
    type: EventType,
    action: string,
    actor: { id: string; attributes?: Record<string, string> },
    scope: EngineEvent['scope'] = 'local',
  ): EngineEvent {
    // The wall clock's millisecond, rounded up to a stamp a JSON number holds exactly (so that a
    // `since` of that millisecond keeps the event); events within one millisecond a step apart.
    const ms = BigInt(Date.now()) * 1_000_000n;
    let nowNano = ((ms + stampStep - 1n) / stampStep) * stampStep;
    if (nowNano <= this.lastNano) nowNano = this.lastNano + stampStep;
    this.lastNano = nowNano;
    const Actor: EventActor = { ID: actor.id, Attributes: { ...actor.attributes } };
    const event: EngineEvent = {
      Type: type,
      Action: action,
      Actor,
      scope,
      time: Number(nowNano / 1_000_000_000n),
      timeNano: Number(nowNano),
    };
    // Container and image events keep Docker's legacy status/id/from fields.
    if (type === 'container' || type === 'image') {
      event.status = action;
      event.id = actor.id;
      if (type === 'container' && Actor.Attributes.image) event.from = Actor.Attributes.image;
    }
    this.journal.push(event);
    if (this.journal.length > journalSize) this.journal.splice(0, this.journal.length - journalSize);
    for (const l of this.listeners) l(event);
    return event;
  }

  /**
   * Past events from the journal (when `since` is given), then live ones, in order. Unknown
   * filter keys are refused here, before the caller answers.
   */
  subscribe(sub: EventSubscription): AsyncIterable<EngineEvent> {
    checkEventFilters(sub.filters);
    return this.stream(sub);
  }

  private async *stream(sub: EventSubscription): AsyncGenerator<EngineEvent> {
    const queue: EngineEvent[] = [];
    let wake: (() => void) | undefined;
    const listener: Listener = (e) => {
      queue.push(e);
      wake?.();
    };
    // Registered before the replay so nothing published in between is lost.
    this.listeners.add(listener);
    const onAbort = () => wake?.();
    sub.signal.addEventListener('abort', onAbort);
    const inWindow = (e: EngineEvent) =>
      (sub.sinceNano === undefined || BigInt(e.timeNano) >= sub.sinceNano) &&
      (sub.untilNano === undefined || BigInt(e.timeNano) <= sub.untilNano);
    try {
      // Either bound asks for the past, as dockerd does: `until` alone replays from the start.
      if (sub.sinceNano !== undefined || sub.untilNano !== undefined) {
        for (const e of this.journal) {
          if (queue.includes(e)) break;
          if (inWindow(e) && eventMatches(e, sub.filters)) yield e;
        }
      }
      for (;;) {
        if (sub.signal.aborted) return;
        const untilMs =
          sub.untilNano === undefined ? undefined : Number(sub.untilNano / 1_000_000n) - Date.now();
        if (untilMs !== undefined && untilMs < 0 && queue.length === 0) return;
        if (queue.length === 0) {
          let timer: NodeJS.Timeout | undefined;
          await new Promise<void>((resolve) => {
            wake = resolve;
            if (untilMs !== undefined) timer = setTimeout(resolve, untilMs + 1);
          });
          clearTimeout(timer);
          wake = undefined;
          continue;
        }
        const e = queue.shift()!;
        if (inWindow(e) && eventMatches(e, sub.filters)) yield e;
      }
    } finally {
      this.listeners.delete(listener);
      sub.signal.removeEventListener('abort', onAbort);
    }
  }
}

// What the app itself asks an engine for that shows as an engine event: the layer view reads an
// image's `docker save`, so the engine reports a `save` nobody typed. The timeline marks those
// (and hides them unless asked) by the image and the time the app's request was open.
import type { EngineEvent, EventActor } from '../../../../daemon/api/event-types';

interface OwnSave {
  image: string;
  /** Seconds, as events have them; `to` is unset while the request runs. */
  from: number;
  to?: number;
}

const saves: OwnSave[] = [];
/** Kept at most: a layer view opened again and again must not grow this without end. */
const KEPT = 200;
/** Seconds of slack either side: an event's time is whole seconds, the engine's clock its own. */
const SLACK = 2;

const bare = (id: string) => id.replace(/^sha256:/, '');

/** Runs `read` (a request that makes the engine save `image`), noting it as the app's own. */
export async function asOwnSave<T>(image: string, read: () => Promise<T>): Promise<T> {
  const save: OwnSave = { image: bare(image), from: Date.now() / 1000 };
  saves.push(save);
  if (saves.length > KEPT) saves.shift();
  try {
    return await read();
  } finally {
    save.to = Date.now() / 1000;
  }
}

/** Whether this image event is a save the app made itself. */
export function isOwnSave(
  e: Pick<EngineEvent, 'Type' | 'Action' | 'time'> & { Actor: Pick<EventActor, 'ID'> },
): boolean {
  if (e.Type !== 'image' || e.Action !== 'save') return false;
  const id = bare(e.Actor.ID);
  return saves.some(
    (s) => s.image === id && e.time >= s.from - SLACK && e.time <= (s.to ?? Infinity) + SLACK,
  );
}

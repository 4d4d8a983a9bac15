// Which events a /events subscriber asked for (the `filters` query of the spec).
import type { EngineEvent } from '../../api/event-types';
import { familiarName, parseReference } from '../shared/reference';
import { checkFilterKeys, labelMatches } from '../../lib/filters';
import type { Filters } from '../../api/filters';

const keys = [
  'container',
  'event',
  'image',
  'label',
  'type',
  'volume',
  'network',
  'daemon',
  'plugin',
  'scope',
  'service',
  'node',
  'secret',
  'config',
];

export function checkEventFilters(filters: Filters): void {
  checkFilterKeys(filters, keys);
}

function anyOf(values: string[] | undefined, test: (v: string) => boolean): boolean {
  return !values || values.length === 0 || values.some(test);
}

/** The short or full ID, or the name, of the object an event is about. */
function refersTo(e: EngineEvent, v: string): boolean {
  return e.Actor.ID === v || e.Actor.ID.startsWith(v) || e.Actor.Attributes.name === v;
}

/** The repository without tag or digest (`busybox` for `busybox:latest`), as Docker compares. */
function withoutTag(image: string): string {
  try {
    return familiarName(parseReference(image));
  } catch {
    return image;
  }
}

/** Docker's image filter: the ID or image name, each also without its tag, matched exactly. */
function imageMatches(e: EngineEvent, v: string): boolean {
  const name = (e.Type === 'image' ? e.Actor.Attributes.name : e.Actor.Attributes.image) ?? '';
  const id = e.Actor.ID;
  return [id, name, withoutTag(id), withoutTag(name)].includes(v) || (e.Type === 'image' && refersTo(e, v));
}

export function eventMatches(e: EngineEvent, f: Filters): boolean {
  const attrs = e.Actor.Attributes;
  const ofType = (t: string, values: string[] | undefined) =>
    !values || values.length === 0 || (e.Type === t && values.some((v) => refersTo(e, v)));
  return (
    anyOf(f.get('type'), (v) => e.Type === v) &&
    // health_status events carry their state in the action ("health_status: healthy").
    anyOf(f.get('event'), (v) => e.Action === v || e.Action.startsWith(`${v}:`)) &&
    ofType('container', f.get('container')) &&
    ofType('volume', f.get('volume')) &&
    ofType('network', f.get('network')) &&
    ofType('daemon', f.get('daemon')) &&
    ofType('plugin', f.get('plugin')) &&
    (['service', 'node', 'secret', 'config'] as const).every((t) => ofType(t, f.get(t))) &&
    anyOf(f.get('scope'), (v) => v === e.scope) &&
    anyOf(f.get('image'), (v) => imageMatches(e, v)) &&
    anyOf(f.get('label'), (v) => labelMatches(attrs, v))
  );
}

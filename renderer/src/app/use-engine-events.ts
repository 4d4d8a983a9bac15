// One subscription to the engine's /events stream drives every list: an event invalidates the
// queries of its resource type. Nothing polls. The stream reopens when the engine comes back.
import { useEffect } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { create } from 'zustand';
import { engine } from '../api/engine-client';
import { jsonLines } from '../api/gateway';
import type { EngineEvent, ImageSummary } from '../api/engine-types';
import { useEngineUp } from './use-desktop-state';

/** The timeline keeps this many; the screen says so when more have been seen. */
export const TIMELINE_LIMIT = 5000;

/** When the app opened, in the engine's seconds: the first subscription asks for events since. */
const openedAt = Math.floor(Date.now() / 1000);

/** An event as kept: an untag also remembers the names its image had just before. */
export type TimelineEvent = EngineEvent & { formerNames?: string[] };

export interface Timeline {
  events: TimelineEvent[];
  seen: number;
}

/**
 * Every event since the app opened. Kept outside the query cache, which a reconnect's refetch
 * of everything (and garbage collection while no screen shows it) would empty.
 */
export const useTimeline = create<Timeline>(() => ({ events: [], seen: 0 }));

const key = (e: EngineEvent) => `${e.timeNano} ${e.Type} ${e.Action} ${e.Actor.ID}`;

const INVALIDATES: Record<string, string[]> = {
  container: ['containers', 'container'],
  // A container's Image column follows its tag: untagged or moved on, it shows the image ID.
  image: ['images', 'image', 'containers'],
  volume: ['volumes'],
  network: ['networks'],
};

/**
 * Each image's names as of the last image event, whatever screen is open: dockerd names an
 * untag by the image ID alone, and these say which names it had just before.
 */
let namesById = new Map<string, string[]>();
function refreshNames(): void {
  engine.images().then(
    (list: ImageSummary[]) => (namesById = new Map(list.map((i) => [i.Id, i.RepoTags ?? []]))),
    () => undefined,
  );
}

function formerNames(events: TimelineEvent[], id: string): string[] {
  const names = new Set(namesById.get(id));
  for (const e of events) {
    const name = e.Actor.Attributes?.name;
    if (e.Type === 'image' && e.Actor.ID === id && name && name !== id) names.add(name);
  }
  names.delete('<none>:<none>');
  return [...names];
}

function record(qc: QueryClient, event: EngineEvent): void {
  useTimeline.setState((old) => {
    const ev: TimelineEvent =
      event.Type === 'image' && event.Action === 'untag'
        ? { ...event, formerNames: formerNames(old.events, event.Actor.ID) }
        : event;
    // A resumed stream repeats the events of the second it resumes from.
    const last = old.events.at(-1)?.time ?? 0;
    if (ev.time <= last && old.events.some((o) => o.time === ev.time && key(o) === key(ev))) return old;
    const events = old.events.length >= TIMELINE_LIMIT ? old.events.slice(1) : old.events.slice();
    events.push(ev);
    return { events, seen: old.seen + 1 };
  });
  for (const key of INVALIDATES[event.Type] ?? []) void qc.invalidateQueries({ queryKey: [key] });
  if (event.Type === 'image') refreshNames();
}

export function useEngineEvents(): void {
  const qc = useQueryClient();
  const up = useEngineUp();
  useEffect(() => {
    if (!up) return;
    const abort = new AbortController();
    // Whatever happened while we were not listening: refetch once, then follow the stream.
    void qc.invalidateQueries();
    refreshNames();
    (async () => {
      // Resume where the timeline stopped (or from the app's opening), as `docker events --since`.
      const since = useTimeline.getState().events.at(-1)?.time ?? openedAt;
      const res = await engine.events(abort.signal, since);
      for await (const ev of jsonLines<EngineEvent>(res)) record(qc, ev);
    })().catch(() => {
      // The stream ends when the engine goes away; the supervisor state reopens it.
    });
    return () => abort.abort();
  }, [qc, up]);
}

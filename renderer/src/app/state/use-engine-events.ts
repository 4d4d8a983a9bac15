// One subscription to the engine's /events stream drives every list: an event invalidates the
// queries of its resource type. Nothing polls. The stream reopens when the engine comes back.
import { useEffect, useRef } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { create } from 'zustand';
import { engine } from '../../api/engine-client';
import { useEngineTarget } from '../../api/engine-target';
import { jsonLines } from '../../api/gateway';
import { followAgainAfterNetworkFailures } from '../../api/network-failures';
import type { EngineEvent } from '../../api/engine-types';
import { useEngineUp } from './use-desktop-state';

/** The timeline keeps this many; the screen says so when more have been seen. */
export const TIMELINE_LIMIT = 5000;

/** When the app opened, in the engine's seconds: the first subscription asks for events since. */
const openedAt = Math.floor(Date.now() / 1000);

export interface Timeline {
  events: EngineEvent[];
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
  // Containers too: their Image column follows a tag that is removed or moved.
  image: ['images', 'image', 'containers'],
  volume: ['volumes'],
  network: ['networks'],
};

function record(qc: QueryClient, ev: EngineEvent): void {
  useTimeline.setState((old) => {
    // A resumed stream repeats the events of the second it resumes from.
    const last = old.events.at(-1)?.time ?? 0;
    if (ev.time <= last && old.events.some((o) => o.time === ev.time && key(o) === key(ev))) return old;
    const events = old.events.length >= TIMELINE_LIMIT ? old.events.slice(1) : old.events.slice();
    events.push(ev);
    return { events, seen: old.seen + 1 };
  });
  for (const key of INVALIDATES[ev.Type] ?? []) void qc.invalidateQueries({ queryKey: [key] });
}

export function useEngineEvents(): void {
  const qc = useQueryClient();
  const up = useEngineUp();
  // A switch of engine follows the new engine's stream.
  const engineId = useEngineTarget((s) => s.id);
  const subscribed = useRef(false);
  useEffect(() => {
    if (!up) return;
    const abort = new AbortController();
    // Whatever happened while we were not listening: refetch once, then follow the stream. The
    // page's first subscription replays every event since the app opened, so only what failed
    // while the engine was not up is fetched again (the rest was fetched since, or waits for
    // the engine); a later one follows an engine that was away and may have lost its events.
    const first = !subscribed.current;
    subscribed.current = true;
    void qc.invalidateQueries(first ? { predicate: (q) => q.state.status === 'error' } : undefined);
    followAgainAfterNetworkFailures(abort.signal, async () => {
      // Resume where the timeline stopped (or from the app's opening), as `docker events --since`.
      const since = useTimeline.getState().events.at(-1)?.time ?? openedAt;
      const res = await engine.events(abort.signal, since);
      for await (const ev of jsonLines<EngineEvent>(res)) record(qc, ev);
    }).catch(() => {
      // The stream ends when the engine goes away; the supervisor state reopens it.
    });
    return () => abort.abort();
  }, [qc, up, engineId]);
}

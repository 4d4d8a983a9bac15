// One subscription to the engine's /events stream drives every list: an event invalidates the
// queries of its resource type. Nothing polls. The stream reopens when the engine comes back.
import { useEffect } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { engine } from '../api/engine-client';
import { jsonLines } from '../api/gateway';
import type { EngineEvent } from '../api/engine-types';
import { useEngineUp } from './use-desktop-state';

export const eventsKey = ['events', { timeline: true }] as const;
/** The timeline keeps this many; the screen says so when more have been seen. */
export const TIMELINE_LIMIT = 5000;

export interface Timeline {
  events: EngineEvent[];
  seen: number;
}

const INVALIDATES: Record<string, string[]> = {
  container: ['containers', 'container'],
  image: ['images', 'image'],
  volume: ['volumes'],
  network: ['networks'],
};

function record(qc: QueryClient, ev: EngineEvent): void {
  qc.setQueryData<Timeline>(eventsKey, (old = { events: [], seen: 0 }) => {
    const events = old.events.length >= TIMELINE_LIMIT ? old.events.slice(1) : old.events.slice();
    events.push(ev);
    return { events, seen: old.seen + 1 };
  });
  for (const key of INVALIDATES[ev.Type] ?? []) void qc.invalidateQueries({ queryKey: [key] });
}

export function useEngineEvents(): void {
  const qc = useQueryClient();
  const up = useEngineUp();
  useEffect(() => {
    if (!up) return;
    const abort = new AbortController();
    // Whatever happened while we were not listening: refetch once, then follow the stream.
    void qc.invalidateQueries();
    (async () => {
      const res = await engine.events(abort.signal);
      for await (const ev of jsonLines<EngineEvent>(res)) record(qc, ev);
    })().catch(() => {
      // The stream ends when the engine goes away; the supervisor state reopens it.
    });
    return () => abort.abort();
  }, [qc, up]);
}

// Stats history per container, kept in the query cache so it outlives tab and screen switches,
// fed two ways into the same history:
// - the detail screen holds one live stream (a sample a second) for its container while any of
//   its tabs is open, so the charts have no gap after a look at the logs;
// - the containers list polls one-shot samples of the running containers it shows on screen
//   (their usage cell in view) on one shared timer, all of them in one request (the gateway's
//   stats-samples view). Not a stream per row: each stream holds one of the six connections
//   Chromium allows per origin over HTTP/1.1 (the events stream already holds one), so a few
//   running containers would stall every other request, and each stream makes the engine
//   sample every second. A poll every few seconds costs one short request a round, and nothing
//   once no running container is in view.
import { useEffect, useRef, type RefObject } from 'react';
import { notifyManager, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { create } from 'zustand';
import { engine } from '../../api/engine-client';
import { jsonLines } from '../../api/gateway';
import { followAgainAfterNetworkFailures } from '../../api/network-failures';
import type { StatsSample } from '../../api/engine-types';
import { readClocksOnBeat } from '../../app/ui/clock-ticks';

export interface StatsPoint {
  t: number;
  cpuPercent: number;
  /** CPUs the container may use: 100 % is one of them, as `docker stats` counts. */
  cpus: number;
  memBytes: number;
  memLimit: number;
  rxBytes: number;
  txBytes: number;
  blkRead: number;
  blkWrite: number;
}

const HISTORY = 300;
/** The time the history covers at the detail stream's sample a second. */
export const HISTORY_MS = HISTORY * 1000;
/** How often the list's timer asks for samples. */
export const POLL_MS = 5000;

export function toPoint(s: StatsSample): StatsPoint {
  const cpuDelta = s.cpu_stats.cpu_usage.total_usage - (s.precpu_stats.cpu_usage?.total_usage ?? 0);
  const sysDelta = (s.cpu_stats.system_cpu_usage ?? 0) - (s.precpu_stats.system_cpu_usage ?? 0);
  const cpus = s.cpu_stats.online_cpus ?? s.cpu_stats.cpu_usage.percpu_usage?.length ?? 1;
  const nets = Object.values(s.networks ?? {});
  const io = s.blkio_stats?.io_service_bytes_recursive ?? [];
  const sumIo = (op: string) => io.filter((e) => e.op.toLowerCase() === op).reduce((a, e) => a + e.value, 0);
  return {
    t: Date.parse(s.read),
    cpuPercent: sysDelta > 0 ? (cpuDelta / sysDelta) * cpus * 100 : 0,
    cpus,
    memBytes: (s.memory_stats.usage ?? 0) - (s.memory_stats.stats?.cache ?? 0),
    memLimit: s.memory_stats.limit ?? 0,
    rxBytes: nets.reduce((a, n) => a + n.rx_bytes, 0),
    txBytes: nets.reduce((a, n) => a + n.tx_bytes, 0),
    blkRead: sumIo('read'),
    blkWrite: sumIo('write'),
  };
}

const historyKey = (id: string) => ['stats', { id }];
const errorKey = (id: string) => ['stats-error', { id }];

function append(qc: QueryClient, id: string, p: StatsPoint): void {
  qc.setQueryData<StatsPoint[]>(historyKey(id), (old = []) => [...old.slice(-(HISTORY - 1)), p]);
}

export function useStatsHistory(id: string): { points: StatsPoint[]; error: unknown } {
  const history = useQuery<StatsPoint[]>({
    queryKey: historyKey(id),
    queryFn: () => [],
    staleTime: Infinity,
    gcTime: 30 * 60_000,
  });
  const error = useQuery<unknown>({ queryKey: errorKey(id), queryFn: () => null, staleTime: Infinity });
  return { points: history.data ?? [], error: error.data };
}

/** The detail screen's live stream for one running container. */
export function useStatsStream(id: string, running: boolean): void {
  const qc = useQueryClient();
  useEffect(() => {
    if (!running) return;
    const abort = new AbortController();
    qc.setQueryData(errorKey(id), null);
    followAgainAfterNetworkFailures(abort.signal, async () => {
      const res = await engine.stats(id, abort.signal);
      for await (const s of jsonLines<StatsSample>(res)) append(qc, id, toPoint(s));
    }).catch((err: unknown) => {
      if ((err as Error).name !== 'AbortError') qc.setQueryData(errorKey(id), err);
    });
    return () => abort.abort();
  }, [id, running, qc]);
}

/** The running containers whose usage cell is in view, by how many of their cells are. */
const useInView = create<{ counts: Map<string, number>; key: string }>(() => ({
  counts: new Map(),
  key: '',
}));

function countInView(id: string, by: 1 | -1): void {
  useInView.setState(({ counts }) => {
    const next = new Map(counts);
    const n = (next.get(id) ?? 0) + by;
    if (n > 0) next.set(id, n);
    else next.delete(id);
    return { counts: next, key: [...next.keys()].sort().join(',') };
  });
}

/** One observer for every usage cell: which are in view. */
let observer: IntersectionObserver | undefined;
const cellIds = new WeakMap<Element, { id: string; inView: boolean }>();

function observeCell(el: Element, id: string): () => void {
  observer ??= new IntersectionObserver((entries) => {
    for (const e of entries) {
      const cell = cellIds.get(e.target);
      if (!cell || cell.inView === e.isIntersecting) continue;
      cell.inView = e.isIntersecting;
      countInView(cell.id, e.isIntersecting ? 1 : -1);
    }
  });
  const cell = { id, inView: false };
  cellIds.set(el, cell);
  observer.observe(el);
  return () => {
    observer!.unobserve(el);
    cellIds.delete(el);
    if (cell.inView) countInView(id, -1);
  };
}

/** A running container's usage cell: polled while it is in view. */
export function useStatsInView(ref: RefObject<Element | null>, id: string): void {
  useEffect(() => (ref.current ? observeCell(ref.current, id) : undefined), [ref, id]);
}

/**
 * The list's timer: every POLL_MS one one-shot sample per running container in view, all in
 * one request. CPU use is the change since the previous sample of the same container; a
 * container just come into view gets its second sample a second after its first.
 */
export function useStatsPolling(): void {
  const qc = useQueryClient();
  const key = useInView((s) => s.key);
  // Kept while rows come and go: scrolling does not restart a container's count.
  const previous = useRef(new Map<string, StatsSample['cpu_stats']>());
  const lastRound = useRef(0);
  useEffect(() => {
    if (!key) return;
    const list = key.split(',');
    const prev = previous.current;
    for (const id of prev.keys()) if (!list.includes(id)) prev.delete(id);
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const round = async () => {
      lastRound.current = Date.now();
      const points: [string, StatsPoint][] = [];
      let started = false;
      const samples = await engine.statsSamples(list).catch(() => []);
      if (stopped) return;
      for (const [i, id] of list.entries()) {
        const s = samples[i];
        if (!s || !('read' in s) || !s.read || s.read.startsWith('0001')) continue;
        const pre = prev.get(id);
        prev.set(id, s.cpu_stats);
        // The first sample has nothing to compare CPU time with: it only starts the count.
        if (pre) points.push([id, toPoint({ ...s, precpu_stats: pre })]);
        else started = true;
      }
      const next = started ? 1000 : POLL_MS;
      // All rows at once: one render and one frame a round, not one per running container
      // (each setQueryData alone schedules its own notification task and render); the list's
      // times ("Up 5 seconds") move in that same render rather than on a timer of their own.
      notifyManager.batch(() => {
        for (const [id, p] of points) append(qc, id, p);
        notifyManager.schedule(() => readClocksOnBeat(next));
      });
      if (!stopped) timer = setTimeout(() => void round(), next);
    };
    // Rows come into view: those not counted yet at once, otherwise on the timer's beat.
    const wait = list.some((id) => !prev.has(id)) ? 0 : POLL_MS - (Date.now() - lastRound.current);
    timer = setTimeout(() => void round(), Math.max(0, wait));
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [key, qc]);
}

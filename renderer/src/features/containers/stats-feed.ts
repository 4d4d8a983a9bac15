// Stats history per container, kept in the query cache so it outlives tab and screen switches,
// fed two ways into the same history:
// - the detail screen holds one live stream (a sample a second) for its container while any of
//   its tabs is open, so the charts have no gap after a look at the logs;
// - the containers list polls one-shot samples of its running containers on one shared timer.
//   Not a stream per row: each stream holds one of the six connections Chromium allows per
//   origin over HTTP/1.1 (the events stream already holds one), so a few running containers would
//   stall every other request, and each stream makes the engine sample every second. A poll every
//   few seconds costs one short request per running container, and nothing once none runs.
import { useEffect } from 'react';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { engine } from '../../api/engine-client';
import { jsonLines } from '../../api/gateway';
import type { StatsSample } from '../../api/engine-types';

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
    (async () => {
      const res = await engine.stats(id, abort.signal);
      for await (const s of jsonLines<StatsSample>(res)) append(qc, id, toPoint(s));
    })().catch((err: unknown) => {
      if ((err as Error).name !== 'AbortError') qc.setQueryData(errorKey(id), err);
    });
    return () => abort.abort();
  }, [id, running, qc]);
}

/**
 * The list's timer: every POLL_MS one one-shot sample per running container, one request at a
 * time. CPU use is the change since the previous sample of the same container.
 */
export function useStatsPolling(ids: string[]): void {
  const qc = useQueryClient();
  const key = ids.join(',');
  useEffect(() => {
    if (!key) return;
    const list = key.split(',');
    const previous = new Map<string, StatsSample['cpu_stats']>();
    let stopped = false;
    let rounds = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const round = async () => {
      const points: [string, StatsPoint][] = [];
      for (const id of list) {
        if (stopped) return;
        const s = await engine.statsOnce(id).catch(() => undefined);
        if (!s || stopped || !s.read || s.read.startsWith('0001')) continue;
        const pre = previous.get(id);
        previous.set(id, s.cpu_stats);
        // The first sample has nothing to compare CPU time with: it only starts the count.
        if (pre) points.push([id, toPoint({ ...s, precpu_stats: pre })]);
      }
      // All rows at once: one render and one frame a round, not one per running container.
      for (const [id, p] of points) append(qc, id, p);
      // The first round only started the counts: the second comes soon, the rest at POLL_MS.
      if (!stopped) timer = setTimeout(() => void round(), rounds++ ? POLL_MS : 1000);
    };
    void round();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [key, qc]);
}

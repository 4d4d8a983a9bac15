// Live CPU, memory, network and block I/O from the stats stream, with history that stays in the
// query cache while the user looks at other tabs.
import { useEffect } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { engine } from '../../../api/engine-client';
import { jsonLines } from '../../../api/gateway';
import type { StatsSample } from '../../../api/engine-types';
import { ErrorMessage } from '../../../app/error-message';
import { bytes } from '../../../app/format';
import { TimeChart, type TimePoint } from '../../../app/time-chart';

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

export function StatsTab({ id, running }: { id: string; running: boolean }) {
  const qc = useQueryClient();
  const key = ['stats', { id }];
  const history = useQuery<StatsPoint[]>({
    queryKey: key,
    queryFn: () => [],
    staleTime: Infinity,
    gcTime: 30 * 60_000,
  });
  const error = useQuery<unknown>({
    queryKey: ['stats-error', { id }],
    queryFn: () => null,
    staleTime: Infinity,
  });

  useEffect(() => {
    if (!running) return;
    const abort = new AbortController();
    (async () => {
      const res = await engine.stats(id, abort.signal);
      for await (const s of jsonLines<StatsSample>(res)) {
        qc.setQueryData<StatsPoint[]>(['stats', { id }], (old = []) => [
          ...old.slice(-(HISTORY - 1)),
          toPoint(s),
        ]);
      }
    })().catch((err: unknown) => {
      if ((err as Error).name !== 'AbortError') qc.setQueryData(['stats-error', { id }], err);
    });
    return () => abort.abort();
  }, [id, running, qc]);

  const pts = history.data ?? [];
  const last = pts[pts.length - 1];
  if (!running && !pts.length) return <p className="muted">The container is not running: no stats.</p>;
  return (
    <div className="stats" data-testid="stats">
      <ErrorMessage error={error.data} context="Stats" />
      <Chart
        title="CPU"
        value={
          last
            ? `${last.cpuPercent.toFixed(1)} % of one core (${last.cpus} ${last.cpus === 1 ? 'core' : 'cores'}: up to ${last.cpus * 100} %)`
            : '—'
        }
        points={pts.map((p) => ({ t: p.t, v: p.cpuPercent }))}
        format={(v) => `${v.toFixed(v < 10 ? 1 : 0)} %`}
      />
      <Chart
        title="Memory"
        value={last ? `${bytes(last.memBytes)} of ${bytes(last.memLimit)}` : '—'}
        points={pts.map((p) => ({ t: p.t, v: p.memBytes }))}
        format={bytes}
      />
      <Chart
        title="Network"
        value={last ? `↓ ${bytes(last.rxBytes)}  ↑ ${bytes(last.txBytes)} in all` : '—'}
        points={rates(pts, (p) => p.rxBytes + p.txBytes)}
        format={(v) => `${bytes(v)}/s`}
      />
      <Chart
        title="Block I/O"
        value={last ? `read ${bytes(last.blkRead)}  write ${bytes(last.blkWrite)} in all` : '—'}
        points={rates(pts, (p) => p.blkRead + p.blkWrite)}
        format={(v) => `${bytes(v)}/s`}
      />
    </div>
  );
}

/** Counters (bytes so far) as rates between samples, what a chart over time should show. */
function rates(pts: StatsPoint[], total: (p: StatsPoint) => number): TimePoint[] {
  return pts.slice(1).map((p, i) => {
    const seconds = Math.max(0.001, (p.t - pts[i].t) / 1000);
    return { t: p.t, v: Math.max(0, total(p) - total(pts[i])) / seconds };
  });
}

function Chart({
  title,
  value,
  points,
  format,
}: {
  title: string;
  value: string;
  points: TimePoint[];
  format: (v: number) => string;
}) {
  return (
    <figure className="chart">
      <figcaption>
        <strong>{title}</strong> <span>{value}</span>
      </figcaption>
      <TimeChart points={points} format={format} label={`${title} over time`} />
    </figure>
  );
}

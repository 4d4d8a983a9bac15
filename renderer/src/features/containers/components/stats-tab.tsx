// Live CPU, memory, network and block I/O charts over the history stats-feed keeps (fed by the
// detail screen's stream while any of its tabs is open), over a time window the user picks.
import { useState } from 'react';
import { ErrorMessage } from '../../../app/ui/error-message';
import { bytes } from '../../../app/ui/format';
import { Segmented, type Choice } from '../../../app/ui/segmented';
import { TimeChart, type TimePoint } from '../../../app/ui/time-chart';
import { HISTORY_MS, useStatsHistory, type StatsPoint } from '../stats-feed';

const WINDOWS: Choice<number>[] = [
  { value: 60_000, label: '1 min' },
  { value: HISTORY_MS, label: `${HISTORY_MS / 60_000} min` },
];

export function StatsTab({ id, running }: { id: string; running: boolean }) {
  const { points: history, error } = useStatsHistory(id);
  const [windowMs, setWindowMs] = useState(WINDOWS[0].value);
  const last = history[history.length - 1];
  // One sample before the window too, so rates reach its left edge.
  const from = last ? history.findLastIndex((p) => p.t < last.t - windowMs) : -1;
  const pts = history.slice(Math.max(0, from));
  if (!running && !pts.length) return <p className="muted">The container is not running: no stats.</p>;
  return (
    <div className="stats" data-testid="stats">
      <ErrorMessage error={error} context="Stats" />
      <div className="toolbar stats-window">
        <Segmented label="Time window" choices={WINDOWS} value={windowMs} onChange={setWindowMs} />
      </div>
      <Chart
        windowMs={windowMs}
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
        windowMs={windowMs}
        title="Memory"
        value={last ? `${bytes(last.memBytes)} of ${bytes(last.memLimit)}` : '—'}
        points={pts.map((p) => ({ t: p.t, v: p.memBytes }))}
        format={bytes}
      />
      <Chart
        windowMs={windowMs}
        title="Network"
        value={last ? `↓ ${bytes(last.rxBytes)}  ↑ ${bytes(last.txBytes)} in all` : '—'}
        points={rates(pts, (p) => p.rxBytes + p.txBytes)}
        format={(v) => `${bytes(v)}/s`}
      />
      <Chart
        windowMs={windowMs}
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
  windowMs,
}: {
  title: string;
  value: string;
  points: TimePoint[];
  format: (v: number) => string;
  windowMs: number;
}) {
  return (
    <figure className="chart">
      <figcaption>
        <strong>{title}</strong> <span>{value}</span>
      </figcaption>
      <TimeChart points={points} format={format} windowMs={windowMs} label={`${title} over time`} />
    </figure>
  );
}

// A row's CPU and memory in the containers list: the latest figures and a sparkline of the last
// minutes, read from the history the list's shared stats timer fills (stats-feed.ts) while the
// cell is in view.
import { useRef } from 'react';
import { bytes } from '../../../app/ui/format';
import { useStatsHistory, useStatsInView } from '../stats-feed';

const W = 48;
const H = 14;
/** Samples drawn: a minute or so at the list's polling interval. */
const SHOWN = 24;

function Sparkline({ values, label }: { values: number[]; label: string }) {
  const max = Math.max(...values, 1e-9);
  const step = W / Math.max(1, SHOWN - 1);
  const d = values
    .map((v, i) => `${i ? 'L' : 'M'}${(i * step).toFixed(1)},${(H - (v / max) * (H - 1)).toFixed(1)}`)
    .join('');
  return (
    <svg className="sparkline" width={W} height={H} role="img" aria-label={label} data-testid="sparkline">
      <path d={d} />
    </svg>
  );
}

export function UsageCell({ id, running }: { id: string; running: boolean }) {
  // A stopped container has no figures: no history to read (a list of hundreds filtered by a
  // keystroke would otherwise make a cache entry and a second render for each row).
  return running ? <RunningUsage id={id} /> : <span className="muted">—</span>;
}

function RunningUsage({ id }: { id: string }) {
  const { points } = useStatsHistory(id);
  // (Both forms are the same span: the one element stays observed.)
  const ref = useRef<HTMLSpanElement>(null);
  useStatsInView(ref, id);
  const recent = points.slice(-SHOWN);
  const last = recent.at(-1);
  if (!last)
    return (
      <span ref={ref} className="muted">
        …
      </span>
    );
  const cpu = `${last.cpuPercent.toFixed(1)} %`;
  return (
    <span ref={ref} className="usage" data-testid="container-usage">
      <Sparkline values={recent.map((p) => p.cpuPercent)} label={`CPU over time, now ${cpu}`} />
      <span>
        {cpu} · {bytes(last.memBytes)}
      </span>
    </span>
  );
}

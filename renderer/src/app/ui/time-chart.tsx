// A line chart over time in SVG: a y axis with its unit (zero, half and the top of the scale), a
// time axis over a fixed window (how long ago it starts, and now; samples fill it from the right
// as they come), and on hover the sample under the pointer with its time and value (from the
// keyboard too: Left and Right step through the samples). No chart library for a few lines.
import { useId, useState, type KeyboardEvent, type MouseEvent } from 'react';
import { scaleTop } from './chart-scale';

export interface TimePoint {
  t: number;
  v: number;
}

const W = 480;
const H = 150;
const LEFT = 64;
const BOTTOM = 20;
const TOP = 8;

function ago(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `−${Math.round(s / 60)} min` : `−${s} s`;
}

export function TimeChart({
  points,
  format,
  label,
  windowMs,
}: {
  points: TimePoint[];
  /** A value with its unit, e.g. "12.5 %" or "3.2 MB/s". */
  format: (v: number) => string;
  label: string;
  /** The time the axis spans, ending at the last sample. */
  windowMs: number;
}) {
  const [hover, setHover] = useState<number | undefined>();
  const clip = useId();
  const top = scaleTop(Math.max(0, ...points.map((p) => p.v)), format);
  const span = windowMs;
  const first = (points[points.length - 1]?.t ?? 0) - span;
  const x = (t: number) => LEFT + ((t - first) / span) * (W - LEFT - 4);
  const y = (v: number) => TOP + (1 - v / top) * (H - TOP - BOTTOM);
  const line = points.map((p) => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(' ');
  const onMove = (e: MouseEvent<SVGSVGElement>) => {
    const box = e.currentTarget.getBoundingClientRect();
    const at = first + (((e.clientX - box.left) / box.width) * W - LEFT) * (span / (W - LEFT - 4));
    const best = points.reduce((b, p, i) => (Math.abs(p.t - at) < Math.abs(points[b].t - at) ? i : b), 0);
    setHover(points.length ? best : undefined);
  };
  const onKey = (e: KeyboardEvent<SVGSVGElement>) => {
    const last = points.length - 1;
    const at = hover ?? last;
    const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: last }[e.key];
    if (e.key === 'Escape' && hover !== undefined) setHover(undefined);
    else if (to !== undefined && last >= 0) setHover(Math.max(0, Math.min(to, last)));
    else return;
    e.preventDefault();
  };
  const shown = hover === undefined ? undefined : points[hover];
  return (
    <div className="time-chart">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={label}
        tabIndex={0}
        onMouseMove={onMove}
        onMouseLeave={() => setHover(undefined)}
        onKeyDown={onKey}
        onBlur={() => setHover(undefined)}
      >
        {[0, 0.5, 1].map((f) => (
          <g key={f} className="grid">
            <line x1={LEFT} x2={W - 4} y1={y(top * f)} y2={y(top * f)} />
            {/* A half that rounds to the top's label (1 B of 1 B) is left unlabelled. */}
            {f === 0.5 && format(top / 2) === format(top) ? null : (
              <text x={LEFT - 6} y={y(top * f) + 4} textAnchor="end">
                {format(top * f)}
              </text>
            )}
          </g>
        ))}
        <g className="axis">
          <text x={LEFT} y={H - 4}>
            {ago(span)}
          </text>
          <text x={W - 4} y={H - 4} textAnchor="end">
            now
          </text>
        </g>
        {/* A sample that came just before the window starts is cut at its edge. */}
        <clipPath id={clip}>
          <rect x={LEFT} y={0} width={W - LEFT - 4} height={H} />
        </clipPath>
        <polyline points={line} className="series" clipPath={`url(#${clip})`} />
        {shown ? <line className="cursor" x1={x(shown.t)} x2={x(shown.t)} y1={TOP} y2={H - BOTTOM} /> : null}
      </svg>
      <div className="chart-reading" data-testid="chart-reading" aria-live="polite">
        {shown ? `${new Date(shown.t).toLocaleTimeString()} · ${format(shown.v)}` : '\u00a0'}
      </div>
    </div>
  );
}

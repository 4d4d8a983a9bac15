// Renders only the rows in view (fixed row height), so 100,000 log lines or 500 containers cost
// what one screenful costs. `follow` keeps the view pinned to the end while new rows arrive.
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';

interface Props {
  count: number;
  rowHeight: number;
  renderRow: (index: number) => ReactNode;
  follow?: boolean;
  /** Scrolls so this row is visible (search results). */
  scrollToIndex?: number;
  /** Rows put in front of the first so far: the view keeps showing the same rows. */
  prepended?: number;
  onUserScroll?: (atEnd: boolean, atTop: boolean) => void;
  className?: string;
  label: string;
}

const OVERSCAN = 10;

export function VirtualList({
  count,
  rowHeight,
  renderRow,
  follow,
  scrollToIndex,
  prepended = 0,
  onUserScroll,
  className,
  label,
}: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);

  useLayoutEffect(() => {
    const el = ref.current!;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  useLayoutEffect(() => {
    if (follow && ref.current) ref.current.scrollTop = count * rowHeight;
  }, [follow, count, rowHeight]);

  const shown = useRef(prepended);
  useLayoutEffect(() => {
    const added = prepended - shown.current;
    shown.current = prepended;
    if (added > 0 && ref.current) ref.current.scrollTop += added * rowHeight;
  }, [prepended, rowHeight]);

  useEffect(() => {
    if (scrollToIndex === undefined || !ref.current) return;
    ref.current.scrollTop = Math.max(0, scrollToIndex * rowHeight - height / 2);
  }, [scrollToIndex, rowHeight, height]);

  const onScroll = useCallback(() => {
    const el = ref.current!;
    setTop(el.scrollTop);
    onUserScroll?.(el.scrollTop + el.clientHeight >= el.scrollHeight - rowHeight, el.scrollTop === 0);
  }, [onUserScroll, rowHeight]);

  const first = Math.max(0, Math.floor(top / rowHeight) - OVERSCAN);
  const last = Math.min(count, Math.ceil((top + height) / rowHeight) + OVERSCAN);
  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) {
    rows.push(
      <div key={i} className="vrow" style={{ top: i * rowHeight, height: rowHeight }}>
        {renderRow(i)}
      </div>,
    );
  }
  return (
    <div
      ref={ref}
      className={`vlist ${className ?? ''}`}
      onScroll={onScroll}
      role="list"
      aria-label={label}
      tabIndex={0}
    >
      <div style={{ height: count * rowHeight, position: 'relative' }}>{rows}</div>
    </div>
  );
}

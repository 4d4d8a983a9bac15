// Renders only the rows in view (fixed row height), so 1,000,000 log lines or 500 containers cost
// what one screenful costs. `follow` keeps the view pinned to the end while new rows arrive.
// The rows sit in one block moved by a transform, so scrolling lays out only the rows that
// change; the rows are rendered in the scroll event itself, in the frame that shows them.
import { useCallback, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { flushSync } from 'react-dom';

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
  /**
   * Rows are keyed by their place on screen, not their index: scrolling reuses each row's
   * elements and only changes their text. For rows that hold no state of their own (log lines).
   */
  recycle?: boolean;
  className?: string;
  label: string;
}

/** Rows rendered beyond each edge of the view. */
const OVERSCAN = 4;
/**
 * The rendered rows start at a multiple of this: scrolling within a block renders nothing, and
 * the rows change at most once every BLOCK rows scrolled.
 */
const BLOCK = 8;

export function VirtualList({
  count,
  rowHeight,
  renderRow,
  follow,
  scrollToIndex,
  prepended = 0,
  onUserScroll,
  recycle,
  className,
  label,
}: Props) {
  const ref = useRef<HTMLDivElement>(null);
  /** Which block the rendered rows start at. */
  const [block, setBlock] = useState(0);
  const [height, setHeight] = useState(600);

  useLayoutEffect(() => {
    const el = ref.current!;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  /** The block at the list's scroll position. */
  const blockAt = useCallback(
    (el: HTMLElement) => Math.floor(Math.max(0, el.scrollTop / rowHeight - OVERSCAN) / BLOCK),
    [rowHeight],
  );

  // Where the list moves itself, its rows follow before the frame is drawn, not one scroll
  // event later.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!follow || !el) return;
    el.scrollTop = count * rowHeight;
    setBlock(blockAt(el));
  }, [follow, count, rowHeight, blockAt]);

  const shown = useRef(prepended);
  useLayoutEffect(() => {
    const added = prepended - shown.current;
    shown.current = prepended;
    const el = ref.current;
    if (added <= 0 || !el) return;
    el.scrollTop += added * rowHeight;
    setBlock(blockAt(el));
  }, [prepended, rowHeight, blockAt]);

  useLayoutEffect(() => {
    const el = ref.current;
    if (scrollToIndex === undefined || !el) return;
    el.scrollTop = Math.max(0, scrollToIndex * rowHeight - height / 2);
    setBlock(blockAt(el));
  }, [scrollToIndex, rowHeight, height, blockAt]);

  const onScroll = useCallback(() => {
    const el = ref.current!;
    // Read before the rows change, so reading does not lay them out ahead of the frame.
    const atEnd = el.scrollTop + el.clientHeight >= el.scrollHeight - rowHeight;
    const atTop = el.scrollTop === 0;
    // Scroll events come in the frame being drawn: rendered now, the new rows are in it
    // (scheduled for later, the frame would show the list moved with the old rows).
    flushSync(() => setBlock(blockAt(el)));
    onUserScroll?.(atEnd, atTop);
  }, [onUserScroll, rowHeight, blockAt]);

  // The view's first row is within BLOCK rows after `first` + OVERSCAN: enough rows follow to
  // cover the view and the overscan below it wherever it is in the block.
  // (A list that shrank may not have scrolled yet.)
  const first = Math.min(block, Math.floor(count / BLOCK)) * BLOCK;
  const last = Math.min(count, first + (Math.ceil((height / rowHeight + 2 * OVERSCAN) / BLOCK) + 1) * BLOCK);
  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) {
    rows.push(
      <div key={recycle ? i - first : i} className="vrow" style={{ height: rowHeight }}>
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
      <div className="vlist-space" style={{ height: count * rowHeight }}>
        <div className="vlist-rows" style={{ transform: `translateY(${first * rowHeight}px)` }}>
          {rows}
        </div>
      </div>
    </div>
  );
}

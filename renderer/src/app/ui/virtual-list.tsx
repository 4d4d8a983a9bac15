// Renders only the rows in view (fixed row height), so 1,000,000 log lines or 500 containers cost
// what one screenful costs. `follow` keeps the view pinned to the end while new rows arrive.
// The rows sit in one block moved by a transform, so scrolling lays out only the rows that
// change; the rows are rendered in the scroll event itself, in the frame that shows them.
// Content taller than an element may be scrolls a space of safe height (see scroll-scale): the
// list then keeps the content position itself and moves it by the wheel and keys as an ordinary
// list would, while the scrollbar maps proportionally.
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { flushSync } from 'react-dom';
import {
  clampOffset,
  keyDelta,
  offsetAt,
  rowsPlace,
  scrollScale,
  scrollTopFor,
  wheelDelta,
} from './scroll-scale';

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

/** Controls whose own keys (space, arrows) are theirs, not the list's. */
const OWN_KEYS = 'input, select, textarea, button, [contenteditable]';

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
  const rowsRef = useRef<HTMLDivElement>(null);
  /** Which block the rendered rows start at. */
  const [block, setBlock] = useState(0);
  const [height, setHeight] = useState(600);
  const scale = scrollScale(count * rowHeight, height);
  /**
   * What the event handlers read: this render's props, the content position at the view's top
   * (px), and the scroll position the list last set for it (a scroll event there is the list's
   * own move, not the user's).
   */
  const live = useRef({ offset: 0, ownTop: -1, transform: '', scale, count, rowHeight, block, onUserScroll });
  Object.assign(live.current, { scale, count, rowHeight, block, onUserScroll });

  useLayoutEffect(() => {
    const el = ref.current!;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // (Stable functions: effects that move the list run for what moved it, not on every render.)
  const [ctl] = useState(() => {
    const l = live.current;
    const blockAt = (offset: number) => Math.floor(Math.max(0, offset / l.rowHeight - OVERSCAN) / BLOCK);
    const firstOf = (b: number) => Math.min(b, Math.floor(l.count / BLOCK)) * BLOCK;
    /** Moves the rows' block so the content position is at the view's top. */
    const place = (scrollTop: number, b: number) => {
      const rowsTop = firstOf(b) * l.rowHeight;
      const y = l.scale.ratio === 1 ? rowsTop : rowsPlace(scrollTop, l.offset, rowsTop);
      const t = `translateY(${y}px)`;
      if (t !== l.transform) rowsRef.current!.style.transform = t;
      l.transform = t;
    };
    const report = (view: number) =>
      l.onUserScroll?.(l.offset + view >= l.scale.content - l.rowHeight, l.offset === 0);
    return {
      firstOf,
      place,
      /**
       * Shows the content from `offset` down: the scroll position for it and the rows. `sync`
       * renders them at once (outside React's own events and effects), in the frame that
       * shows them.
       */
      moveTo(offset: number, sync = false) {
        const el = ref.current!;
        l.offset = clampOffset(l.scale, offset);
        const top = scrollTopFor(l.scale, l.offset);
        if (top !== l.ownTop || Math.abs(el.scrollTop - top) >= 1) {
          l.ownTop = top;
          el.scrollTop = top;
        }
        const b = blockAt(l.offset);
        if (sync) flushSync(() => setBlock(b));
        else setBlock(b);
        place(top, b);
      },
      /** The wheel or a key in a scaled space. */
      by(px: number) {
        this.moveTo(l.offset + px, true);
        report(l.scale.view);
      },
      onScroll() {
        const el = ref.current!;
        // Read before the rows change, so reading does not lay them out ahead of the frame.
        const top = el.scrollTop;
        const view = el.clientHeight;
        // The list's own move was placed where it was made; any other is the user's (the
        // scrollbar, or the wheel where the space is not scaled).
        if (Math.abs(top - l.ownTop) >= 1) {
          l.ownTop = -1;
          l.offset = offsetAt(l.scale, top);
          const b = blockAt(l.offset);
          // Scroll events come in the frame being drawn: rendered now, the new rows are in it
          // (scheduled for later, the frame would show the list moved with the old rows).
          if (b !== l.block) flushSync(() => setBlock(b));
          place(top, b);
        }
        report(view);
      },
    };
  });

  // The list moves itself: to the end when following, past the rows put in front, and to the
  // same content when a scaled space is rescaled (rows added, the view resized).
  const shown = useRef(prepended);
  useLayoutEffect(() => {
    const added = prepended - shown.current;
    shown.current = prepended;
    if (follow) ctl.moveTo(Infinity);
    else if (added > 0) ctl.moveTo(live.current.offset + added * rowHeight);
    else if (scale.ratio !== 1) ctl.moveTo(live.current.offset);
  }, [ctl, follow, prepended, rowHeight, count, scale.ratio, height]);

  useLayoutEffect(() => {
    if (scrollToIndex !== undefined) ctl.moveTo(scrollToIndex * rowHeight - height / 2);
  }, [ctl, scrollToIndex, rowHeight, height]);

  // In a scaled space the wheel and keys would move the scroll position, which moves the
  // content `ratio` times as far: the list moves the content by what they ask instead.
  const scaled = scale.ratio !== 1;
  useEffect(() => {
    const el = ref.current!;
    if (!scaled) return;
    const wheel = (e: WheelEvent) => {
      if (e.ctrlKey || !e.deltaY) return;
      e.preventDefault();
      ctl.by(wheelDelta(e.deltaY, e.deltaMode, rowHeight, el.clientHeight));
    };
    const key = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
      if ((e.target as Element).closest(OWN_KEYS)) return;
      const px = keyDelta(e.key, e.shiftKey, el.clientHeight);
      if (px === undefined) return;
      e.preventDefault();
      ctl.by(px);
    };
    el.addEventListener('wheel', wheel, { passive: false });
    el.addEventListener('keydown', key);
    return () => {
      el.removeEventListener('wheel', wheel);
      el.removeEventListener('keydown', key);
    };
  }, [ctl, scaled, rowHeight]);

  // Rendered rows go where the content position puts them, whatever made this render.
  useLayoutEffect(() => ctl.place(scrollTopFor(scale, live.current.offset), block));

  // The view's first row is within BLOCK rows after `first` + OVERSCAN: enough rows follow to
  // cover the view and the overscan below it wherever it is in the block.
  // (A list that shrank may not have scrolled yet.)
  const first = ctl.firstOf(block);
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
      onScroll={ctl.onScroll}
      role="list"
      aria-label={label}
      tabIndex={0}
    >
      <div className="vlist-space" style={{ height: scale.space }}>
        <div ref={rowsRef} className="vlist-rows">
          {rows}
        </div>
      </div>
    </div>
  );
}

// Where a virtual list's content is taller than an element may be (Chromium caps an element's
// height near 33,554,428 px: about 1.8M rows of 18 px), the scrolled space stays at a safe height
// and scroll positions map to content positions proportionally. The list keeps the content
// position as the truth; the scroll position only places the scrollbar's thumb.

/** The tallest scrolled space a list makes, px: well below the browser's cap. */
export const MAX_SPACE = 8_000_000;

export interface ScrollScale {
  /** Height of the scrolled space, px. */
  space: number;
  /** The content's height, px. */
  content: number;
  /** The view's height, px. */
  view: number;
  /** Content px per scrolled px: 1 while the content fits in the space. */
  ratio: number;
}

export function scrollScale(content: number, view: number, max = MAX_SPACE): ScrollScale {
  if (content <= max || view >= max) return { space: content, content, view, ratio: 1 };
  // Both ends meet: the space's last scroll position shows the content's last screen.
  return { space: max, content, view, ratio: (content - view) / (max - view) };
}

/** The content position (px from its top to the view's top) kept within the content. */
export function clampOffset(s: ScrollScale, offset: number): number {
  return Math.min(Math.max(0, s.content - s.view), Math.max(0, offset));
}

/** The content position shown at a scroll position (the scrollbar dragged, or clicked). */
export function offsetAt(s: ScrollScale, scrollTop: number): number {
  return clampOffset(s, scrollTop * s.ratio);
}

/** The scroll position (whole px) that shows a content position. */
export function scrollTopFor(s: ScrollScale, offset: number): number {
  return Math.round(clampOffset(s, offset) / s.ratio);
}

/**
 * Where the rendered rows go in the scrolled space so that the content at `offset` is at the
 * view's top, when the space is scrolled to `scrollTop` and the rows start at content `rowsTop`.
 */
export function rowsPlace(scrollTop: number, offset: number, rowsTop: number): number {
  return scrollTop + rowsTop - offset;
}

/**
 * How far a wheel event moves the content, px: as the browser would scroll an ordinary list
 * (lines or pages for wheels that count in them), never more than a screenful.
 */
export function wheelDelta(deltaY: number, deltaMode: number, lineHeight: number, view: number): number {
  const px = deltaMode === 1 ? deltaY * lineHeight : deltaMode === 2 ? deltaY * view : deltaY;
  return Math.max(-view, Math.min(view, px));
}

/**
 * How far a key moves the content, px (as Chromium scrolls a focused list), or undefined for a
 * key that does not scroll. `Infinity` is to the end, `-Infinity` to the start.
 */
export function keyDelta(key: string, shift: boolean, view: number): number | undefined {
  const page = Math.max(view * 0.875, view - 40);
  switch (key) {
    case 'ArrowDown':
      return 40;
    case 'ArrowUp':
      return -40;
    case 'PageDown':
      return page;
    case 'PageUp':
      return -page;
    case ' ':
      return shift ? -page : page;
    case 'End':
      return Infinity;
    case 'Home':
      return -Infinity;
    default:
      return undefined;
  }
}

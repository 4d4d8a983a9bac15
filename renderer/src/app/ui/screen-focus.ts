// Where focus goes when the element holding it disappears (the row of a removed container, the
// dialog that removed it): the screen's heading, so the next Tab goes on from the screen rather
// than from the top of the page.
import { useEffect } from 'react';

export function focusScreenHeading(): void {
  const heading = document.querySelector<HTMLElement>('main h1');
  if (!heading) return;
  heading.tabIndex = -1;
  heading.focus();
}

/** Watches for focus lost to a removed element, for the whole app. */
export function useFocusKeeper(): void {
  useEffect(() => {
    const onFocusOut = (e: FocusEvent) => {
      const gone = e.target as Element;
      // After the removal: by then the browser has settled where focus is.
      setTimeout(() => {
        const now = document.activeElement;
        if (!gone.isConnected && (!now || now === document.body) && !document.querySelector('dialog[open]'))
          focusScreenHeading();
      });
    };
    document.addEventListener('focusout', onFocusOut);
    return () => document.removeEventListener('focusout', onFocusOut);
  }, []);
}

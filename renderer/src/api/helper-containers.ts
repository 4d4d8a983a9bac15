// Containers the app makes for itself: a volume browser's, which mounts the volume so its files
// can be read through the archive API. They carry a label, and no list the user sees shows them.
import type { ContainerSummary } from './engine-types';

/** On a volume browser's container; its value is the volume's name. */
export const VOLUME_BROWSER_LABEL = 'dev.svc.desktop.volume-browser';

export function withoutHelpers(list: ContainerSummary[]): ContainerSummary[] {
  return list.filter((c) => c.Labels?.[VOLUME_BROWSER_LABEL] === undefined);
}

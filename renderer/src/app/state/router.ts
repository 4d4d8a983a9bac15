// Where the user is: a hash route (so reload and back work) mirrored in a small zustand store.
import { create } from 'zustand';

export type Section =
  | 'containers'
  | 'all-engines'
  | 'images'
  | 'build'
  | 'volumes'
  | 'networks'
  | 'swarm'
  | 'registry'
  | 'events'
  | 'disk'
  | 'settings';

export const SECTIONS: { id: Section; label: string; key: string }[] = [
  { id: 'containers', label: 'Containers', key: '1' },
  { id: 'images', label: 'Images', key: '2' },
  { id: 'build', label: 'Build', key: 'b' },
  { id: 'volumes', label: 'Volumes', key: '3' },
  { id: 'networks', label: 'Networks', key: '4' },
  { id: 'swarm', label: 'Swarm', key: 'w' },
  { id: 'registry', label: 'Registry', key: '5' },
  { id: 'events', label: 'Events', key: '6' },
  { id: 'disk', label: 'Disk usage', key: '7' },
  { id: 'settings', label: 'Settings', key: '8' },
  { id: 'all-engines', label: 'All engines', key: '9' },
];

export interface Route {
  section: Section;
  /** The rest of the path, e.g. [containerId, 'logs'] or [repository]. */
  rest: string[];
}

function parse(hash: string): Route {
  const [first, ...rest] = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const section = SECTIONS.some((s) => s.id === first) ? (first as Section) : 'containers';
  return { section, rest: rest.filter(Boolean) };
}

export const useRoute = create<Route>(() => parse(window.location.hash));

window.addEventListener('hashchange', () => useRoute.setState(parse(window.location.hash), true));

export function navigate(section: Section, ...rest: string[]): void {
  window.location.hash = '/' + [section, ...rest].map(encodeURIComponent).join('/');
}

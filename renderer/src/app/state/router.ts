// Where the user is: a hash route (so reload and back work) mirrored in a small zustand store.
import { create } from 'zustand';
import { SECTIONS, type Section } from './sections';

export { SECTIONS, type Section };

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

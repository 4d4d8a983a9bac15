// The app's sections, in sidebar order, with their Alt+key shortcuts. Apart from the router (it
// reads the window's address) so the prerendered shell can list them outside a browser.
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

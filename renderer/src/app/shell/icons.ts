// One icon per section, shared by the sidebar and the command palette.
import {
  Activity,
  Boxes,
  Hammer,
  HardDrive,
  Layers,
  Library,
  Network,
  PieChart,
  Server,
  Ship,
  Settings,
  type LucideIcon,
} from 'lucide-react';
import type { Section } from '../state/sections';

export const SECTION_ICONS: Record<Section, LucideIcon> = {
  containers: Boxes,
  images: Layers,
  build: Hammer,
  volumes: HardDrive,
  networks: Network,
  swarm: Ship,
  registry: Library,
  events: Activity,
  disk: PieChart,
  settings: Settings,
  'all-engines': Server,
};

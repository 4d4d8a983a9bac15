// One icon per section, shared by the sidebar and the command palette.
import {
  Activity,
  Boxes,
  HardDrive,
  Layers,
  Library,
  Network,
  PieChart,
  Server,
  Settings,
  type LucideIcon,
} from 'lucide-react';
import type { Section } from '../router';

export const SECTION_ICONS: Record<Section, LucideIcon> = {
  containers: Boxes,
  images: Layers,
  volumes: HardDrive,
  networks: Network,
  registry: Library,
  events: Activity,
  disk: PieChart,
  settings: Settings,
  'all-engines': Server,
};

// The containers' palette entries: each container's tabs and actions, named after it, and what
// the list's toolbar and bulk bar do.
import type { QueryClient } from '@tanstack/react-query';
import type { LucideIcon } from 'lucide-react';
import {
  ExternalLink,
  FileDown,
  FolderOpen,
  Info,
  LineChart,
  ListFilter,
  Play,
  RotateCw,
  ScrollText,
  Square,
  SquareTerminal,
  Trash2,
} from 'lucide-react';
import { engine } from '../../api/engine-client';
import type { ContainerSummary } from '../../api/engine-types';
import { containerName, plural } from '../../app/ui/format';
import { cached, command, type Command } from '../../app/ui/command';
import { navigate } from '../../app/state/router';
import { downloadUrl } from '../../app/ui/save-file';
import { requestIntent } from '../../app/state/intent';
import type { useBulkAction } from './queries';
import { useContainersUi } from './store';

type Act = ReturnType<typeof useBulkAction>['mutate'];

const TABS: [string, string, LucideIcon][] = [
  ['summary', 'Show details of', Info],
  ['logs', 'Show logs of', ScrollText],
  ['terminal', 'Open a terminal in', SquareTerminal],
  ['stats', 'Show stats of', LineChart],
  ['files', 'Browse files of', FolderOpen],
];

function oneContainer(c: ContainerSummary, act: Act): Command[] {
  const name = containerName(c.Names, c.Id);
  const running = c.State === 'running';
  const its = (verb: string, icon: LucideIcon, run: () => void) =>
    command(`${verb} container ${name}`, icon, run, c.State);
  return [
    ...TABS.map(([tab, verb, icon]) => its(verb, icon, () => navigate('containers', c.Id, tab))),
    running
      ? its('Stop', Square, () => act({ ids: [c.Id], action: 'stop' }))
      : its('Start', Play, () => act({ ids: [c.Id], action: 'start' })),
    its('Restart', RotateCw, () => act({ ids: [c.Id], action: 'restart' })),
    command(
      `Download the full log of container ${name}`,
      FileDown,
      () => downloadUrl(engine.logFileUrl(c.Id, false), `${name}.log`),
      c.State,
    ),
    command(
      `Remove container ${name}…`,
      Trash2,
      () => requestIntent('containers', 'container.remove', c.Id),
      c.State,
    ),
    ...c.Ports.filter((p) => p.PublicPort).map((p) =>
      command(
        `Open port ${p.PublicPort} of container ${name} in the browser`,
        ExternalLink,
        () => window.open(`http://127.0.0.1:${p.PublicPort}/`, '_blank', 'noreferrer'),
        `${p.PublicPort}→${p.PrivatePort}/${p.Type}`,
      ),
    ),
  ];
}

/** The bulk bar's actions, while containers still listed are selected (removed ones are not). */
function selection(act: Act, listed: ContainerSummary[]): Command[] {
  const ui = useContainersUi.getState();
  const ids = [...ui.selected].filter((id) => listed.some((c) => c.Id === id));
  if (!ids.length) return [];
  const n = plural(ids.length, 'selected container');
  return [
    command(`Start ${n}`, Play, () => act({ ids, action: 'start' })),
    command(`Stop ${n}`, Square, () => act({ ids, action: 'stop' })),
    command(`Restart ${n}`, RotateCw, () => act({ ids, action: 'restart' })),
    command(`Remove ${n}…`, Trash2, () => requestIntent('containers', 'container.remove', ids.join(','))),
    command('Clear the container selection', ListFilter, () => ui.selectOnly([])),
  ];
}

export function containerCommands(qc: QueryClient, act: Act): Command[] {
  const ui = useContainersUi.getState();
  const listed = cached<ContainerSummary>(qc, 'containers', (c) => c.Id);
  return [
    command('Run container…', Play, () => (navigate('containers'), ui.setRunOpen(true))),
    ui.showAll
      ? command(
          'Show running containers only',
          ListFilter,
          () => (navigate('containers'), ui.setShowAll(false)),
        )
      : command(
          'Show all containers, stopped ones too',
          ListFilter,
          () => (navigate('containers'), ui.setShowAll(true)),
        ),
    ...selection(act, listed),
    ...listed.flatMap((c) => oneContainer(c, act)),
  ];
}

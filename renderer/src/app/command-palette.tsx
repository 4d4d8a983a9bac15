// Ctrl+K (or Cmd+K): jump to a section or a container, or run a common action, by typing.
import { useEffect, useMemo, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { LucideIcon } from 'lucide-react';
import {
  Boxes,
  Download,
  Eraser,
  FileArchive,
  FileInput,
  FolderOpen,
  HardDriveDownload,
  History,
  Info,
  Layers,
  LineChart,
  Moon,
  Play,
  Plus,
  RotateCw,
  ScrollText,
  Square,
  SquareTerminal,
  Sun,
  Tag,
  Trash2,
  Upload,
} from 'lucide-react';
import type { ContainerSummary, ImageSummary } from '../api/engine-types';
import { useBulkAction } from '../features/containers/queries';
import { useContainersUi } from '../features/containers/store';
import { useImagesUi } from '../features/images/store';
import { archiveName } from '../features/images/names';
import { engine } from '../api/engine-client';
import { downloadUrl } from './save-file';
import { Dialog } from './dialog';
import { containerName } from './format';
import { navigate, SECTIONS } from './router';
import { useTheme } from './theme';
import { SECTION_ICONS } from './ui/icons';
import { requestIntent } from './ui/intent';

interface Command {
  label: string;
  hint: string;
  icon: LucideIcon;
  run: () => void;
}

/** Whatever lists of this kind are already cached; the palette itself fetches nothing. */
function cached<T>(qc: ReturnType<typeof useQueryClient>, key: string, id: (t: T) => string): T[] {
  return qc
    .getQueriesData<T[]>({ queryKey: [key] })
    .flatMap(([, d]) => (Array.isArray(d) ? d : []))
    .filter((c, i, all) => all.findIndex((x) => id(x) === id(c)) === i);
}

function containerCommands(c: ContainerSummary, act: ReturnType<typeof useBulkAction>['mutate']): Command[] {
  const name = containerName(c.Names, c.Id);
  const running = c.State === 'running';
  const tab = (label: string, icon: LucideIcon, t: string) => ({
    label: `${name}: ${label}`,
    hint: c.State,
    icon,
    run: () => navigate('containers', c.Id, t),
  });
  return [
    tab('details', Info, 'summary'),
    tab('logs', ScrollText, 'logs'),
    tab('terminal', SquareTerminal, 'terminal'),
    tab('stats', LineChart, 'stats'),
    tab('files', FolderOpen, 'files'),
    {
      label: `${name}: ${running ? 'stop' : 'start'}`,
      hint: c.State,
      icon: running ? Square : Play,
      run: () => act({ ids: [c.Id], action: running ? 'stop' : 'start' }),
    },
    {
      label: `${name}: restart`,
      hint: c.State,
      icon: RotateCw,
      run: () => act({ ids: [c.Id], action: 'restart' }),
    },
    {
      label: `${name}: remove…`,
      hint: c.State,
      icon: Trash2,
      run: () => requestIntent('containers', 'container.remove', c.Id),
    },
  ];
}

const IMAGE_VIEWS: [string, string, LucideIcon][] = [
  ['summary', 'details', Info],
  ['layers', 'layers and files', Layers],
  ['history', 'history', History],
  ['containers', 'containers', Boxes],
];

function imageCommands(i: ImageSummary): Command[] {
  const names = (i.RepoTags ?? []).filter((t) => t !== '<none>:<none>');
  const ui = useImagesUi.getState();
  const go = (label: string, icon: LucideIcon, open: () => void) => ({
    label,
    hint: 'image',
    icon,
    run: () => (navigate('images'), open()),
  });
  return [
    ...names.flatMap((n) => [
      go(`${n}: run…`, Play, () => ui.open({ kind: 'run', image: n })),
      go(`${n}: push…`, Upload, () => ui.open({ kind: 'push', name: n })),
      go(`${n}: tag…`, Tag, () => ui.open({ kind: 'tag', id: i.Id })),
      ...IMAGE_VIEWS.map(([view, label, icon]) => ({
        label: `${n}: ${label}`,
        hint: 'image',
        icon,
        run: () => navigate('images', i.Id, view),
      })),
      go(`${n}: save to a file`, HardDriveDownload, () => downloadUrl(engine.saveUrl(n), archiveName(n))),
      go(`${n}: remove…`, Trash2, () => ui.open({ kind: 'remove', id: n, last: names.length <= 1 })),
    ]),
  ];
}

function useCommands(): Command[] {
  const qc = useQueryClient();
  const { theme, setTheme } = useTheme();
  const act = useBulkAction().mutate;
  const images = useImagesUi.getState();
  const action = (label: string, icon: LucideIcon, run: () => void) => ({ label, hint: 'action', icon, run });
  return [
    ...SECTIONS.map((s) => ({
      label: s.label,
      hint: `Alt+${s.key}`,
      icon: SECTION_ICONS[s.id],
      run: () => navigate(s.id),
    })),
    action(
      'Run container…',
      Play,
      () => (navigate('containers'), useContainersUi.getState().setRunOpen(true)),
    ),
    action('Pull image…', Download, () => (navigate('images'), images.open({ kind: 'pull' }))),
    action('Load image from a file…', FileArchive, () => (navigate('images'), images.open({ kind: 'load' }))),
    action(
      'Import a root filesystem…',
      FileInput,
      () => (navigate('images'), images.open({ kind: 'import' })),
    ),
    action('Create volume…', Plus, () => requestIntent('volumes', 'volume.create')),
    action('Prune unused volumes…', Eraser, () => requestIntent('volumes', 'volume.prune')),
    action('Clean up everything…', Trash2, () => requestIntent('disk', 'disk.cleanup')),
    action('Add a registry…', Plus, () => requestIntent('registry', 'registry.add')),
    action('Push to a registry from an engine…', Upload, () => requestIntent('registry', 'registry.push')),
    action(`Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`, theme === 'dark' ? Sun : Moon, () =>
      setTheme(theme === 'dark' ? 'light' : 'dark'),
    ),
    ...cached<ContainerSummary>(qc, 'containers', (c) => c.Id).flatMap((c) => containerCommands(c, act)),
    ...cached<ImageSummary>(qc, 'images', (i) => i.Id).flatMap(imageCommands),
  ];
}

export function CommandPalette() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return open ? <Palette onClose={() => setOpen(false)} /> : null;
}

function Palette({ onClose }: { onClose: () => void }) {
  const commands = useCommands();
  const [text, setText] = useState('');
  const [active, setActive] = useState(0);
  const shown = useMemo(() => {
    const words = text.toLowerCase().split(/\s+/).filter(Boolean);
    return commands.filter((c) => words.every((w) => c.label.toLowerCase().includes(w))).slice(0, 50);
  }, [commands, text]);
  const choose = (c: Command | undefined) => {
    if (!c) return;
    onClose();
    c.run();
  };
  return (
    <Dialog title="Command palette" onClose={onClose}>
      <input
        autoFocus
        className="palette-input"
        aria-label="Command"
        placeholder="Type a section, a container or an action"
        value={text}
        onChange={(e) => (setText(e.target.value), setActive(0))}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') setActive((i) => Math.min(i + 1, shown.length - 1));
          else if (e.key === 'ArrowUp') setActive((i) => Math.max(i - 1, 0));
          else if (e.key === 'Enter') choose(shown[active]);
          else return;
          e.preventDefault();
        }}
      />
      <ul className="palette" role="listbox" aria-label="Commands">
        {shown.map((c, i) => (
          <li key={c.label} role="option" aria-selected={i === active} onMouseDown={() => choose(c)}>
            <c.icon size={16} aria-hidden /> <span>{c.label}</span> <span className="muted">{c.hint}</span>
          </li>
        ))}
      </ul>
    </Dialog>
  );
}

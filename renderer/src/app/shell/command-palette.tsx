// Ctrl+K (or Cmd+K): every action of the app by typing — the sections, each screen's actions and
// each object's (features/*/commands.ts), so a keyboard alone reaches all of them.
import { useEffect, useMemo, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { PanelLeftClose, PanelLeftOpen, Search } from 'lucide-react';
import { containerCommands } from '../../features/containers/commands';
import { useBulkAction } from '../../features/containers/queries';
import { diskCommands } from '../../features/disk-usage/commands';
import { engineCommands } from '../../features/engines/commands';
import { eventCommands } from '../../features/events/commands';
import { imageCommands } from '../../features/images/commands';
import { registryCommands } from '../../features/registry/commands';
import { settingsCommands } from '../../features/settings/commands';
import { volumeCommands } from '../../features/volumes/commands';
import { Dialog } from '../ui/dialog';
import { command, type Command } from '../ui/command';
import { navigate, SECTIONS } from '../state/router';
import { focusSearch } from '../ui/search-box';
import { useSidebar } from './sidebar-store';
import { SECTION_ICONS } from './icons';

function shellCommands(): Command[] {
  const sidebar = useSidebar.getState();
  return [
    ...SECTIONS.map((s) => command(s.label, SECTION_ICONS[s.id], () => navigate(s.id), `Alt+${s.key}`)),
    command(
      sidebar.collapsed ? 'Expand the sidebar' : 'Collapse the sidebar',
      sidebar.collapsed ? PanelLeftOpen : PanelLeftClose,
      sidebar.toggle,
    ),
    command('Search this screen', Search, focusSearch, '/'),
  ];
}

function useCommands(): Command[] {
  const qc = useQueryClient();
  const act = useBulkAction().mutate;
  return [
    ...shellCommands(),
    ...containerCommands(qc, act),
    ...imageCommands(qc),
    ...volumeCommands(qc),
    ...registryCommands(qc),
    ...diskCommands(),
    ...eventCommands(),
    ...settingsCommands(qc),
    ...engineCommands(qc),
  ];
}

/** Options shown at once; typing narrows the rest down. */
const SHOWN = 50;

export function Palette({ onClose }: { onClose: () => void }) {
  const commands = useCommands();
  const [text, setText] = useState('');
  const [active, setActive] = useState(0);
  const list = useRef<HTMLUListElement>(null);
  const shown = useMemo(() => {
    const words = text.toLowerCase().split(/\s+/).filter(Boolean);
    return commands.filter((c) => words.every((w) => c.label.toLowerCase().includes(w))).slice(0, SHOWN);
  }, [commands, text]);
  useEffect(() => {
    list.current?.querySelector('[aria-selected=true]')?.scrollIntoView({ block: 'nearest' });
  }, [active, shown]);
  const choose = (c: Command | undefined) => {
    if (!c) return;
    onClose();
    // Once the palette is gone: the page behind it takes focus again (a field the command focuses).
    setTimeout(c.run);
  };
  const move = (to: number) => setActive(Math.max(0, Math.min(to, shown.length - 1)));
  return (
    <Dialog title="Command palette" onClose={onClose}>
      <input
        autoFocus
        className="palette-input"
        role="combobox"
        aria-expanded
        aria-controls="palette-options"
        aria-activedescendant={shown[active] ? `palette-option-${active}` : undefined}
        aria-label="Command"
        placeholder="Type a section, a container, an image or an action"
        value={text}
        onChange={(e) => (setText(e.target.value), setActive(0))}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') move(active + 1);
          else if (e.key === 'ArrowUp') move(active - 1);
          else if (e.key === 'PageDown') move(active + 8);
          else if (e.key === 'PageUp') move(active - 8);
          else if (e.key === 'Enter') choose(shown[active]);
          else return;
          e.preventDefault();
        }}
      />
      <ul className="palette" role="listbox" id="palette-options" aria-label="Commands" ref={list}>
        {shown.map((c, i) => (
          <li
            key={c.label}
            id={`palette-option-${i}`}
            role="option"
            aria-selected={i === active}
            onMouseDown={() => choose(c)}
          >
            <c.icon size={16} aria-hidden /> <span>{c.label}</span> <span className="muted">{c.hint}</span>
          </li>
        ))}
      </ul>
      {shown.length === 0 ? <p className="muted">No command matches “{text}”.</p> : null}
    </Dialog>
  );
}

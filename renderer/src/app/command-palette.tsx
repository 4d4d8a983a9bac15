// Ctrl+K (or Cmd+K): jump to a section or a container, or run a common action, by typing.
import { useEffect, useMemo, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { ContainerSummary } from '../api/engine-types';
import { useContainersUi } from '../features/containers/store';
import { useImagesUi } from '../features/images/store';
import { Dialog } from './dialog';
import { containerName } from './format';
import { navigate, SECTIONS } from './router';
import { useTheme } from './theme';

interface Command {
  label: string;
  hint: string;
  run: () => void;
}

function useCommands(): Command[] {
  const qc = useQueryClient();
  const { theme, setTheme } = useTheme();
  // Whatever container lists are already cached; the palette itself fetches nothing.
  const containers = qc
    .getQueriesData<ContainerSummary[]>({ queryKey: ['containers'] })
    .flatMap(([, d]) => d ?? [])
    .filter((c, i, all) => all.findIndex((x) => x.Id === c.Id) === i);
  return [
    ...SECTIONS.map((s) => ({ label: s.label, hint: `Alt+${s.key}`, run: () => navigate(s.id) })),
    {
      label: 'Run container…',
      hint: 'action',
      run: () => (navigate('containers'), useContainersUi.getState().setRunOpen(true)),
    },
    {
      label: 'Pull image…',
      hint: 'action',
      run: () => (navigate('images'), useImagesUi.getState().open({ kind: 'pull' })),
    },
    {
      label: `Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`,
      hint: 'action',
      run: () => setTheme(theme === 'dark' ? 'light' : 'dark'),
    },
    ...containers.flatMap((c) => {
      const name = containerName(c.Names, c.Id);
      return [
        { label: `${name}: logs`, hint: c.State, run: () => navigate('containers', c.Id, 'logs') },
        { label: `${name}: terminal`, hint: c.State, run: () => navigate('containers', c.Id, 'terminal') },
      ];
    }),
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
            <span>{c.label}</span> <span className="muted">{c.hint}</span>
          </li>
        ))}
      </ul>
    </Dialog>
  );
}

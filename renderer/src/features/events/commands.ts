// The events timeline's palette entries: show one type of event, or all.
import { ListFilter } from 'lucide-react';
import { command, type Command } from '../../app/ui/command';
import { navigate } from '../../app/state/router';
import { EVENT_TYPES, useEventsUi } from './store';

export function eventCommands(): Command[] {
  const { type, setType } = useEventsUi.getState();
  return ['', ...EVENT_TYPES]
    .filter((t) => t !== type)
    .map((t) =>
      command(t ? `Show only ${t} events` : 'Show events of every type', ListFilter, () => {
        setType(t);
        navigate('events');
      }),
    );
}

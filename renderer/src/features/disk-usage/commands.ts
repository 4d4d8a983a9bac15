// The disk usage screen's palette entries: each prune, and cleaning up everything.
import { Eraser, Trash2 } from 'lucide-react';
import { command, type Command } from '../../app/ui/command';
import { requestIntent } from '../../app/state/intent';
import { PRUNE_LABELS } from './components/disk-usage';
import type { Kind } from './queries';

export function diskCommands(): Command[] {
  return [
    command('Clean up everything…', Trash2, () => requestIntent('disk', 'disk.cleanup')),
    ...(Object.keys(PRUNE_LABELS) as Kind[]).map((kind) =>
      command(`${PRUNE_LABELS[kind].action}…`, Eraser, () => requestIntent('disk', 'disk.prune', kind)),
    ),
  ];
}

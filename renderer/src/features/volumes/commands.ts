// The volumes' palette entries: create, prune, and browsing or removing each volume by name.
import type { QueryClient } from '@tanstack/react-query';
import { Eraser, FolderOpen, Plus, Trash2 } from 'lucide-react';
import type { Volume } from '../../api/engine-types';
import { command, type Command } from '../../app/ui/command';
import { navigate } from '../../app/state/router';
import { requestIntent } from '../../app/state/intent';

export function volumeCommands(qc: QueryClient): Command[] {
  const volumes = qc.getQueryData<{ Volumes: Volume[] | null }>(['volumes', {}])?.Volumes ?? [];
  return [
    command('Create volume…', Plus, () => requestIntent('volumes', 'volume.create')),
    command('Prune unused volumes…', Eraser, () => requestIntent('volumes', 'volume.prune')),
    ...volumes.flatMap((v) => [
      command(`Browse files of volume ${v.Name}`, FolderOpen, () => navigate('volumes', v.Name), 'volume'),
      command(
        `Remove volume ${v.Name}…`,
        Trash2,
        () => requestIntent('volumes', 'volume.remove', v.Name),
        'volume',
      ),
    ]),
  ];
}

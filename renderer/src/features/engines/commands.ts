// The engines' palette entries: switch to each, add one, test or remove an added one.
import type { QueryClient } from '@tanstack/react-query';
import { ArrowRightLeft, Plus, Stethoscope, Trash2 } from 'lucide-react';
import type { EngineSummary } from '../../../../daemon/api/desktop-types';
import { useEngineTarget } from '../../api/engine-target';
import { command, type Command } from '../../app/ui/command';
import { requestIntent } from '../../app/state/intent';
import { selectEngine } from './queries';
import { embeddedEngine, enginesKey } from '../../app/state/engines';

export function engineCommands(qc: QueryClient): Command[] {
  const added = qc.getQueryData<EngineSummary[]>(enginesKey) ?? [];
  const selected = useEngineTarget.getState().id;
  return [
    command('Add an engine…', Plus, () => requestIntent('settings', 'engine.add')),
    ...[embeddedEngine, ...added]
      .filter((e) => e.id !== selected)
      .map((e) =>
        command(`Switch to engine ${e.name}`, ArrowRightLeft, () => selectEngine(qc, e.id), e.endpoint),
      ),
    ...added.flatMap((e) => [
      command(
        `Test engine ${e.name}`,
        Stethoscope,
        () => requestIntent('settings', 'engine.test', e.id),
        e.endpoint,
      ),
      command(
        `Remove engine ${e.name}…`,
        Trash2,
        () => requestIntent('settings', 'engine.remove', e.id),
        e.endpoint,
      ),
    ]),
  ];
}

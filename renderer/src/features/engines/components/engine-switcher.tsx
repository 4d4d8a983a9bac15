// The engine every screen uses, chosen in the sidebar; an engine that does not answer says why
// here, while the screens show their own errors.
import { useQueryClient } from '@tanstack/react-query';
import { useEngineTarget } from '../../../api/engine-target';
import { errorText } from '../../../api/gateway';
import { selectEngine, useEngineStatus } from '../queries';
import { EngineSelect } from './engine-select';

export function EngineSwitcher() {
  const qc = useQueryClient();
  const selected = useEngineTarget((s) => s.id);
  const status = useEngineStatus(selected);
  const down =
    status.data?.up === false ? status.data.reason : status.error ? errorText(status.error) : undefined;
  return (
    <div className="engine-switcher">
      <EngineSelect value={selected} onChange={(id) => selectEngine(qc, id)} />
      {down ? (
        <p className="error" role="alert" data-testid="engine-down">
          This engine does not answer: {down}. Check that it runs and that the address is right in Settings.
        </p>
      ) : null}
    </div>
  );
}

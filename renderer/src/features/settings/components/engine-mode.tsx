// Settings → Engine mode: which engine the app stands on (the system's svcd, or its own rootless
// or rootful one), why, and the pick, kept by the app and applied at once.
import { useState } from 'react';
import type { EngineMode, EngineModePreference } from '../../../../../daemon/api/desktop-types';
import { ErrorMessage } from '../../../app/ui/error-message';
import { useIntentHandler } from '../../../app/state/intent';
import { useEngineMode } from '../queries';

export const ENGINE_MODE_LABELS: Record<EngineModePreference, string> = {
  auto: 'Automatic: the system engine when it answers, otherwise the app’s own',
  system: 'System engine (the svcd service, for members of the svc group)',
  rootless: 'The app’s own rootless engine (runs as you, no root needed)',
  rootful: 'The app’s own engine, as root',
};

const modeNames: Record<EngineMode, string> = {
  system: 'system engine',
  rootless: 'own rootless engine',
  rootful: 'own engine (root)',
};

export function EngineModeSettings() {
  const { query, select } = useEngineMode();
  const choice = query.data;
  const options: EngineModePreference[] = ['auto', ...(choice?.available ?? [])];
  // The pick shows at once (the mutation's own state comes a tick later), while the app moves onto it.
  const [pending, setPending] = useState<EngineModePreference>();
  const picked = pending ?? choice?.preference;
  const pick = (p: EngineModePreference) => {
    setPending(p);
    select.mutate(p, { onSettled: () => setPending(undefined) });
  };
  useIntentHandler('settings.engine-mode', !!choice && !select.isPending, (p) =>
    pick(p as EngineModePreference),
  );
  return (
    <fieldset data-testid="engine-mode">
      <legend>Engine mode</legend>
      {choice ? (
        <dl className="kv">
          <dt>In use</dt>
          <dd>
            <strong data-testid="engine-mode-current">{modeNames[choice.mode]}</strong> on{' '}
            <code>unix://{choice.socket}</code>
          </dd>
          <dt>Why</dt>
          <dd data-testid="engine-mode-reason">{choice.reason}</dd>
        </dl>
      ) : null}
      {options.map((p) => (
        <label key={p} className="choice">
          <input
            type="radio"
            name="engine-mode"
            checked={picked === p}
            disabled={!choice || select.isPending}
            onChange={() => pick(p)}
          />{' '}
          {ENGINE_MODE_LABELS[p]}
        </label>
      ))}
      <p className="hint">
        Leaving the app’s own engine stops it, as quitting the app does. The system engine is never stopped by
        the app.
      </p>
      <ErrorMessage error={query.error ?? select.error} />
    </fieldset>
  );
}

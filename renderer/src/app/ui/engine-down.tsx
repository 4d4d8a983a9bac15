// The empty state of a screen whose engine is not up: why (the supervisor's reason) and what to do.
import { ServerCrash } from 'lucide-react';
import { navigate } from '../state/router';
import { useService } from '../state/use-desktop-state';
import { Button } from './button';
import { EmptyState } from './empty-state';

const advice: Record<string, string> = {
  starting: 'It is starting: this screen fills in as soon as it answers.',
  restarting: 'It stopped and is being restarted: this screen fills in as soon as it answers.',
};

export function EngineDown() {
  const svcd = useService('svcd');
  const status = svcd?.status ?? 'unknown';
  return (
    <EmptyState
      icon={ServerCrash}
      title={`The engine is ${status}`}
      tone="problem"
      testId="engine-down"
      actions={<Button label="Open diagnostics" variant="primary" onClick={() => navigate('settings')} />}
    >
      <p>{svcd?.reason ?? 'The app has not heard from the engine yet.'}</p>
      <p className="muted">
        {advice[status] ??
          'Settings shows its log and can restart it; if it keeps failing, the log says why (a missing containerd or runc, a socket in use).'}
      </p>
    </EmptyState>
  );
}

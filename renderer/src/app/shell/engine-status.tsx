// The engine indicator in the sidebar: up (with version), starting, restarting, down or failed
// with the supervisor's reason.
import { useQuery } from '@tanstack/react-query';
import { engine } from '../../api/engine-client';
import { useEngineUp, useService } from '../state/use-desktop-state';
import { navigate } from '../state/router';

export function EngineStatus() {
  const svcd = useService('svcd');
  const up = useEngineUp();
  const version = useQuery({ queryKey: ['version', {}], queryFn: engine.version, enabled: up });
  const status = svcd?.status ?? 'unknown';
  return (
    <button
      className={`engine-status engine-${status}`}
      onClick={() => navigate('settings')}
      title={svcd?.reason ?? svcd?.endpoint}
      data-testid="engine-status"
    >
      <span className="dot" aria-hidden />
      <span>
        Engine {status}
        {up && version.data ? ` · ${version.data.Version} (API ${version.data.ApiVersion})` : ''}
        {svcd?.adopted ? ' · external' : ''}
      </span>
      {svcd?.reason && status !== 'up' ? <span className="reason">{svcd.reason}</span> : null}
    </button>
  );
}

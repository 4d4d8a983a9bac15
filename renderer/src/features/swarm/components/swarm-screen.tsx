// The Swarm screen, on an engine that manages a swarm (GET /info: Swarm.ControlAvailable):
// services with their tasks and logs, nodes, secrets and configs. Elsewhere it says why not.
import { Network } from 'lucide-react';
import { DetailTabs } from '../../../app/ui/detail';
import { EmptyState } from '../../../app/ui/empty-state';
import { EngineDown } from '../../../app/ui/engine-down';
import { ErrorMessage } from '../../../app/ui/error-message';
import { useEngineUp } from '../../../app/state/use-desktop-state';
import { useSwarmInfo } from '../queries';
import { ServicesTab } from './services-tab';
import { NodesTab, ObjectsTab } from './swarm-objects';
import './swarm.css';

const TABS = ['services', 'nodes', 'secrets', 'configs'] as const;

export function SwarmScreen({ tab }: { tab: string }) {
  const up = useEngineUp();
  const info = useSwarmInfo();
  const current = (TABS as readonly string[]).includes(tab) ? tab : 'services';
  const state = info.data?.Swarm;
  return (
    <section className="screen" aria-labelledby="swarm-title">
      <header className="toolbar">
        <h1 id="swarm-title">Swarm</h1>
        {state?.ControlAvailable ? (
          <span className="muted">a manager of its swarm · node {state.NodeID.slice(0, 12)}</span>
        ) : null}
      </header>
      {up ? null : <EngineDown />}
      <ErrorMessage error={info.error} context="Could not read the engine's swarm state" />
      {info.data && !state?.ControlAvailable ? (
        <EmptyState icon={Network} title="This engine is not a swarm manager" testId="swarm-absent">
          <p>
            Its swarm state is <strong>{state?.LocalNodeState || 'inactive'}</strong>
            {state?.LocalNodeState === 'active' ? ' (a worker: services are managed from a manager)' : ''}.
            Services, nodes, secrets and configs are shown for an engine that manages a swarm: run{' '}
            <code>docker swarm init</code> on it, or choose such an engine in the sidebar.
          </p>
        </EmptyState>
      ) : null}
      {state?.ControlAvailable ? (
        <>
          <DetailTabs tabs={TABS} current={current} href={(t) => `#/swarm/${t}`} />
          <div className="tabpanel" role="tabpanel">
            {current === 'services' ? <ServicesTab /> : null}
            {current === 'nodes' ? <NodesTab /> : null}
            {current === 'secrets' || current === 'configs' ? (
              <ObjectsTab key={current} kind={current} />
            ) : null}
          </div>
        </>
      ) : null}
    </section>
  );
}

// Networks with the containers connected to each.
import { ErrorMessage } from '../../../app/error-message';
import { shortId } from '../../../app/format';
import { useNetworks } from '../queries';
import { Network } from 'lucide-react';
import { EngineDown } from '../../../app/ui/engine-down';
import { useEngineUp } from '../../../app/use-desktop-state';

export function NetworkList() {
  const networks = useNetworks();
  const up = useEngineUp();
  return (
    <section className="screen">
      <header className="toolbar">
        <h1>Networks</h1>
      </header>
      {up ? null : <EngineDown />}
      <ErrorMessage error={networks.error} context="Could not list networks" />
      <div className="cards">
        {(networks.data ?? []).map((n) => (
          <article key={n.Id} className="card">
            <h2>
              <Network size={16} aria-hidden /> {n.Name} <span className="muted">{n.Driver}</span>
            </h2>
            <p className="muted">
              {shortId(n.Id)} · {(n.IPAM?.Config ?? []).map((c) => c.Subnet).join(', ') || 'no subnet'}
            </p>
            <ul>
              {Object.entries(n.Containers ?? {}).map(([id, c]) => (
                <li key={id}>
                  <a href={`#/containers/${id}/summary`}>{c.Name}</a> <code>{c.IPv4Address}</code>
                </li>
              ))}
              {Object.keys(n.Containers ?? {}).length === 0 ? <li className="muted">no containers</li> : null}
            </ul>
          </article>
        ))}
      </div>
    </section>
  );
}

// The networks drawn as lanes, each with the containers on it (address and published ports); a
// container on several networks shows in each. Chips wrap in a grid, so fifty containers stay a
// few rows per network rather than one long line.
import type { ContainerSummary, NetworkResource } from '../../../api/engine-types';
import { containerName } from '../../../app/ui/format';
import { PortLinks } from '../../../app/ui/port-links';

export function Topology({
  networks,
  containers,
}: {
  networks: NetworkResource[];
  containers: ContainerSummary[];
}) {
  const byId = new Map(containers.map((c) => [c.Id, c]));
  return (
    <div className="topology" aria-label="Network topology">
      {networks.map((n) => {
        const members = Object.entries(n.Containers ?? {})
          .map(([id, m]) => ({ id, m, c: byId.get(id) }))
          .sort((a, b) => a.m.Name.localeCompare(b.m.Name));
        return (
          <section key={n.Id} className="lane" aria-label={`Network ${n.Name}`} data-network={n.Name}>
            <header>
              <a href={`#/networks/${encodeURIComponent(n.Name)}`}>
                <strong>{n.Name}</strong>
              </a>
              <span className="muted">
                {n.Driver} · {(n.IPAM?.Config ?? []).map((c) => c.Subnet).join(', ') || 'no subnet'} ·{' '}
                {members.length} container{members.length === 1 ? '' : 's'}
              </span>
            </header>
            {members.length ? (
              <ul className="lane-members">
                {members.map(({ id, m, c }) => (
                  <li key={id} className="chip" data-container={m.Name}>
                    <a href={`#/containers/${id}/summary`} className="ellipsis" title={m.Name}>
                      {c ? containerName(c.Names, id) : m.Name}
                    </a>
                    <code className="muted">{m.IPv4Address.split('/')[0] || '—'}</code>
                    {c?.Ports.some((p) => p.PublicPort) ? (
                      <PortLinks ports={c.Ports.filter((p) => p.PublicPort)} />
                    ) : null}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">no containers</p>
            )}
          </section>
        );
      })}
    </div>
  );
}

// Inspect as readable fields, then the raw JSON; networks, volumes and published ports are links.
import type { ReactNode } from 'react';
import type { ContainerInspect } from '../../../api/engine-types';
import { plural, when } from '../../../app/ui/format';
import { Fields } from '../../../app/ui/detail';
import { PortLinks } from '../../../app/ui/port-links';

const list = (items: ReactNode[]) => (items.length ? <span className="links">{items}</span> : '—');

export function SummaryTab({ c }: { c: ContainerInspect }) {
  const ports = Object.entries(c.NetworkSettings?.Ports ?? {}).flatMap(([k, v]) => {
    const [port, type] = k.split('/');
    return (v ?? []).map((b) => ({
      IP: b.HostIp,
      PublicPort: Number(b.HostPort),
      PrivatePort: Number(port),
      Type: type,
    }));
  });
  const networks = Object.entries(c.NetworkSettings?.Networks ?? {}).map(([name, n]) => (
    <span key={name}>
      <a href={`#/networks/${encodeURIComponent(name)}`}>{name}</a> <code>{n.IPAddress || '—'}</code>
      {n.Aliases?.length ? <span className="muted"> ({n.Aliases.join(', ')})</span> : null}
    </span>
  ));
  const mounts = c.Mounts.map((m) => (
    <span key={m.Destination}>
      {m.Type === 'volume' && m.Name ? (
        <a href={`#/volumes/${encodeURIComponent(m.Name)}`}>volume {m.Name}</a>
      ) : (
        <span>
          {m.Type} {m.Source}
        </span>
      )}{' '}
      → {m.Destination}
      {m.RW ? '' : ' (ro)'}
    </span>
  ));
  const fields: [string, ReactNode][] = [
    ['Id', c.Id],
    ['Image', `${c.Config.Image} (${c.Image})`],
    ['Command', [c.Path, ...c.Args].join(' ')],
    ['Created', when(c.Created)],
    [
      'State',
      `${c.State.Status}${c.State.ExitCode ? `, exit code ${c.State.ExitCode}` : ''}${c.State.Error ? `, ${c.State.Error}` : ''}`,
    ],
    ['Started', when(c.State.StartedAt)],
    ['Finished', when(c.State.FinishedAt)],
    [
      'Restart policy',
      `${c.HostConfig.RestartPolicy?.Name || 'no'} (restarted ${plural(c.RestartCount, 'time')})`,
    ],
    ['IP address', c.NetworkSettings?.IPAddress || '—'],
    ['Networks', list(networks)],
    ['Published ports', ports.length ? <PortLinks ports={ports} /> : '—'],
    ['Mounts', list(mounts)],
    ['Environment', (c.Config.Env ?? []).join('  ') || '—'],
    ['TTY', c.Config.Tty ? 'yes' : 'no'],
  ];
  return <Fields fields={fields} raw={c} />;
}

// Inspect as readable fields, then the raw JSON.
import type { ContainerInspect } from '../../../api/engine-types';
import { plural, when } from '../../../app/format';
import { Fields } from '../../../app/ui/detail';

export function SummaryTab({ c }: { c: ContainerInspect }) {
  const ports = Object.entries(c.NetworkSettings?.Ports ?? {}).flatMap(([k, v]) =>
    (v ?? []).map((b) => `${b.HostIp || '0.0.0.0'}:${b.HostPort} → ${k}`),
  );
  const fields: [string, string][] = [
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
    ['Ports', ports.join(', ') || '—'],
    ['Mounts', c.Mounts.map((m) => `${m.Source} → ${m.Destination}${m.RW ? '' : ' (ro)'}`).join(', ') || '—'],
    ['Environment', (c.Config.Env ?? []).join('  ') || '—'],
    ['TTY', c.Config.Tty ? 'yes' : 'no'],
  ];
  return <Fields fields={fields} raw={c} />;
}

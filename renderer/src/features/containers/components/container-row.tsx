// One container of the containers list. Memoized: a keystroke in the search box, a stats round
// or another row's change renders only the rows whose container changed, and the row's times
// follow the clock in their own cells.
import { memo } from 'react';
import type { ContainerSummary } from '../../../api/engine-types';
import { ago, containerName, shortId, statusAt, statusSince } from '../../../app/ui/format';
import { navigate } from '../../../app/state/router';
import { useClockText } from '../../../app/ui/use-now';
import { Button } from '../../../app/ui/button';
import { PortLinks } from '../../../app/ui/port-links';
import { rowKeys } from '../../../app/ui/row-keys';
import { Play, RotateCw, ScrollText, Square, SquareTerminal, Trash2 } from 'lucide-react';
import { serviceLabel } from '../../compose/projects';
import { UsageCell } from './usage-cell';

export interface ContainerRowProps {
  c: ContainerSummary;
  /** The compose project it is listed under. */
  project?: string;
  /** The action under way ("stopping…"). */
  busy?: string;
  selected: boolean;
  /** When the list was fetched: the status ("Up 3 minutes") counts on from then. */
  fetchedAt: number;
  onAction(action: 'start' | 'stop' | 'restart', id: string): void;
  onRemove(id: string): void;
  onToggle(id: string): void;
}

function Created({ at }: { at: number }) {
  return <span className="col-mid">{useClockText((now) => ago(at, now), at * 1000)}</span>;
}

function Status({ status, fetchedAt }: { status: string; fetchedAt: number }) {
  const text = useClockText((now) => statusAt(status, fetchedAt, now), statusSince(status, fetchedAt));
  return <span className="ellipsis">{text}</span>;
}

export const ContainerRow = memo(function ContainerRow({
  c,
  project,
  busy,
  selected,
  fetchedAt,
  onAction,
  onRemove,
  onToggle,
}: ContainerRowProps) {
  const service = project ? serviceLabel(c) : undefined;
  const running = c.State === 'running';
  const clean = c.State === 'exited' && /^Exited \(0\)/.test(c.Status);
  // Icon buttons named with the container: a screen reader hears which one they act on.
  const cname = containerName(c.Names, c.Id);
  return (
    <div
      className={`containers-grid row${project ? ' in-project' : ''}`}
      data-testid="container-row"
      data-row
      onKeyDown={rowKeys({
        open: () => navigate('containers', c.Id, 'summary'),
        remove: busy ? undefined : () => onRemove(c.Id),
      })}
    >
      <input
        type="checkbox"
        aria-label={`Select ${cname}`}
        checked={selected}
        onChange={() => onToggle(c.Id)}
      />
      {/* In a project the service says which one it is; the full name is the tooltip. */}
      <a href={`#/containers/${c.Id}/summary`} className="name ellipsis" title={cname}>
        {service ?? cname}
      </a>
      <span className={busy ? 'badge state-busy' : `badge state-${c.State}${clean ? ' exit-ok' : ''}`}>
        {busy ?? c.State}
      </span>
      <span className="ellipsis" title={c.Image} data-testid="container-image">
        {/* The engine gives the image ID once the name no longer names the image. */}
        {c.Image.startsWith('sha256:') ? shortId(c.Image) : c.Image}
      </span>
      <code className="ellipsis col-wide" title={c.Command}>
        {c.Command}
      </code>
      <PortLinks ports={c.Ports} className="ports" />
      <Created at={c.Created} />
      <Status status={c.Status} fetchedAt={fetchedAt} />
      <UsageCell id={c.Id} running={running} />
      <span className="actions">
        <Button
          iconOnly
          icon={running ? Square : Play}
          label={`${running ? 'Stop' : 'Start'} ${cname}`}
          disabled={!!busy}
          onClick={() => onAction(running ? 'stop' : 'start', c.Id)}
        />
        <Button
          iconOnly
          icon={RotateCw}
          label={`Restart ${cname}`}
          disabled={!!busy}
          onClick={() => onAction('restart', c.Id)}
        />
        <Button
          iconOnly
          icon={ScrollText}
          label={`Logs of ${cname}`}
          onClick={() => navigate('containers', c.Id, 'logs')}
        />
        <Button
          iconOnly
          icon={SquareTerminal}
          label={`Terminal in ${cname}`}
          disabled={!running || !!busy}
          onClick={() => navigate('containers', c.Id, 'terminal')}
        />
        <Button
          iconOnly
          icon={Trash2}
          variant="danger"
          label={`Remove ${cname}`}
          disabled={!!busy}
          onClick={() => onRemove(c.Id)}
        />
      </span>
    </div>
  );
});

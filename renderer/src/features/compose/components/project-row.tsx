// A compose project's row in the containers list: fold and unfold its containers, what runs and
// what it publishes, and the actions on the whole project (its logs, start, stop, restart,
// remove with its networks and, when asked, its volumes).
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ChevronDown, ChevronRight, Play, RotateCw, ScrollText, Square, Trash2 } from 'lucide-react';
import { ConfirmDialog } from '../../../app/ui/confirm-dialog';
import { errorText } from '../../../api/gateway';
import { navigate } from '../../../app/state/router';
import { toast } from '../../../app/ui/toasts';
import { plural } from '../../../app/ui/format';
import { Button } from '../../../app/ui/button';
import { actOnProject, removeProject, type ProjectAction, type RemovedProject } from '../project-actions';
import { publishedPorts, stateSummary, type Project } from '../projects';
import './compose.css';

export function ProjectRow({
  project,
  folded,
  onToggle,
}: {
  project: Project;
  folded: boolean;
  onToggle: () => void;
}) {
  const qc = useQueryClient();
  const [removing, setRemoving] = useState(false);
  const [withVolumes, setWithVolumes] = useState(false);
  const refresh = () => qc.invalidateQueries({ queryKey: ['containers'] });
  const act = useMutation({
    mutationFn: async (action: ProjectAction | 'remove'): Promise<RemovedProject | undefined> =>
      action === 'remove'
        ? removeProject(project.name, withVolumes)
        : void (await actOnProject(project.name, action)),
    onSuccess: (r) => {
      if (r)
        toast(
          'done',
          `Removed ${project.name}: ${plural(r.containers, 'container')}, ${plural(r.networks.length, 'network')}` +
            (withVolumes ? `, ${plural(r.volumes.length, 'volume')}` : ''),
        );
    },
    // The row is one line high: a failure is a toast that stays until dismissed.
    onError: (err, action) =>
      toast('failed', `Could not ${action} project ${project.name}: ${errorText(err)}`),
    onSettled: refresh,
  });
  const running = project.containers.some((c) => c.State === 'running');
  const name = project.name;
  return (
    <div className="project-row row" data-testid="project-row" data-project={name} data-row>
      <button
        className="project-toggle"
        aria-expanded={!folded}
        aria-label={`${folded ? 'Show' : 'Hide'} the containers of ${name}`}
        onClick={onToggle}
      >
        {folded ? <ChevronRight size={16} aria-hidden /> : <ChevronDown size={16} aria-hidden />}
      </button>
      <strong className="ellipsis" title={`compose project ${name}`}>
        {name}
      </strong>
      <span className="muted">compose · {plural(project.containers.length, 'container')}</span>
      <span className="ellipsis" data-testid="project-state">
        {act.isPending ? `${act.variables}…` : stateSummary(project)}
      </span>
      <span className="ports ellipsis">
        {publishedPorts(project).map((p) => (
          <a
            key={`${p.host}/${p.proto}`}
            href={`http://127.0.0.1:${p.host}/`}
            target="_blank"
            rel="noreferrer"
          >
            {p.host}→{p.container}/{p.proto}
          </a>
        ))}
      </span>
      <span className="actions">
        <Button
          iconOnly
          icon={ScrollText}
          label={`Logs of project ${name}`}
          onClick={() => navigate('containers', 'project', name)}
        />
        <Button
          iconOnly
          icon={running ? Square : Play}
          label={`${running ? 'Stop' : 'Start'} project ${name}`}
          disabled={act.isPending}
          onClick={() => act.mutate(running ? 'stop' : 'start')}
        />
        <Button
          iconOnly
          icon={RotateCw}
          label={`Restart project ${name}`}
          disabled={act.isPending}
          onClick={() => act.mutate('restart')}
        />
        <Button
          iconOnly
          icon={Trash2}
          variant="danger"
          label={`Remove project ${name}`}
          disabled={act.isPending}
          onClick={() => setRemoving(true)}
        />
      </span>
      {removing ? (
        <ConfirmDialog
          title={`Remove project ${name}?`}
          action="Remove project"
          onConfirm={() => act.mutate('remove')}
          onClose={() => setRemoving(false)}
        >
          <p>
            Its {plural(project.containers.length, 'container')} will be stopped and removed, with the
            networks the project made, as <code>docker-compose down</code> does.
          </p>
          <label className="inline">
            <input type="checkbox" checked={withVolumes} onChange={(e) => setWithVolumes(e.target.checked)} />{' '}
            Also remove its volumes (their data is lost)
          </label>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}

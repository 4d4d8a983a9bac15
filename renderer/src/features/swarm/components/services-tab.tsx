// The swarm's services: mode, replicas running of desired, image and ports; create, scale,
// update the image, roll back, remove; each service's tasks (state and error) and its logs.
import { useEffect, useState, type FormEvent } from 'react';
import { ArrowUpDown, Layers, ListTree, Plus, ScrollText, Trash2, Undo2 } from 'lucide-react';
import { errorText } from '../../../api/gateway';
import { ConfirmDialog } from '../../../app/ui/confirm-dialog';
import { Dialog } from '../../../app/ui/dialog';
import { ErrorMessage } from '../../../app/ui/error-message';
import { shortId, when } from '../../../app/ui/format';
import { toast } from '../../../app/ui/toasts';
import { Button } from '../../../app/ui/button';
import { EmptyState } from '../../../app/ui/empty-state';
import { useServices, useSwarmChange, useTasks } from '../queries';
import type { PortConfig, ServiceSpec, SwarmService } from '../../../../../daemon/api/swarm-types';
import { swarm } from '../swarm-api';
import { splitCommand } from '../../../app/ui/form-input';
import { readChunks } from '../../../api/stdcopy';

const replicasOf = (s: SwarmService) =>
  s.Spec.Mode?.Replicated
    ? `${s.ServiceStatus?.RunningTasks ?? '?'}/${s.ServiceStatus?.DesiredTasks ?? s.Spec.Mode.Replicated.Replicas ?? '?'}`
    : `${s.ServiceStatus?.RunningTasks ?? '?'}/${s.ServiceStatus?.DesiredTasks ?? '?'}`;
/** The image without the digest the engine pins it to. */
const imageOf = (spec: ServiceSpec) =>
  (spec.TaskTemplate?.ContainerSpec?.Image ?? '').replace(/@sha256:[0-9a-f]+$/, '');
const portText = (p: PortConfig) => `${p.PublishedPort ?? '?'}→${p.TargetPort}/${p.Protocol ?? 'tcp'}`;

type Dialogs =
  | { kind: 'create' }
  | { kind: 'scale'; s: SwarmService }
  | { kind: 'image'; s: SwarmService }
  | { kind: 'remove'; s: SwarmService }
  | undefined;

export function ServicesTab() {
  const services = useServices(true);
  const [dialog, setDialog] = useState<Dialogs>();
  const [open, setOpen] = useState<{ id: string; view: 'tasks' | 'logs' }>();
  const rollback = useSwarmChange((s: SwarmService) => swarm.rollbackService(s.ID));
  const shown = services.data?.find((s) => s.ID === open?.id);
  return (
    <>
      <div className="toolbar">
        <span className="spacer" />
        <Button
          icon={Plus}
          variant="primary"
          label="Create service…"
          onClick={() => setDialog({ kind: 'create' })}
        />
      </div>
      <ErrorMessage error={services.error} context="Could not list services" />
      <ErrorMessage error={rollback.error} context="Could not roll back" />
      {services.data?.length === 0 ? (
        <EmptyState icon={Layers} title="No services yet">
          <p>A service runs replicas of one image across the swarm&apos;s nodes, and keeps them running.</p>
        </EmptyState>
      ) : null}
      {services.data?.length ? (
        <table className="table" aria-label="Services">
          <thead>
            <tr>
              <th>Name</th>
              <th>Mode</th>
              <th>Replicas</th>
              <th>Image</th>
              <th>Ports</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {services.data.map((s) => {
              const name = s.Spec.Name;
              return (
                <tr key={s.ID} data-service={name} aria-current={open?.id === s.ID ? 'true' : undefined}>
                  <td>
                    <strong>{name}</strong> <span className="muted">{shortId(s.ID)}</span>
                    {s.UpdateStatus?.State ? (
                      <span className="muted service-note">update {s.UpdateStatus.State}</span>
                    ) : null}
                  </td>
                  <td>{s.Spec.Mode?.Replicated ? 'replicated' : 'global'}</td>
                  <td data-testid="service-replicas">{replicasOf(s)}</td>
                  <td className="truncate" title={s.Spec.TaskTemplate?.ContainerSpec?.Image}>
                    {imageOf(s.Spec)}
                  </td>
                  <td>{(s.Endpoint?.Ports ?? []).map(portText).join(', ') || '—'}</td>
                  <td className="actions">
                    <Button
                      iconOnly
                      icon={ListTree}
                      label={`Tasks of ${name}`}
                      onClick={() => setOpen({ id: s.ID, view: 'tasks' })}
                    />
                    <Button
                      iconOnly
                      icon={ScrollText}
                      label={`Logs of ${name}`}
                      onClick={() => setOpen({ id: s.ID, view: 'logs' })}
                    />
                    <Button
                      iconOnly
                      icon={ArrowUpDown}
                      label={`Scale ${name}`}
                      disabled={!s.Spec.Mode?.Replicated}
                      onClick={() => setDialog({ kind: 'scale', s })}
                    />
                    <Button
                      iconOnly
                      icon={Layers}
                      label={`Update the image of ${name}`}
                      onClick={() => setDialog({ kind: 'image', s })}
                    />
                    <Button
                      iconOnly
                      icon={Undo2}
                      label={`Roll back ${name}`}
                      title={
                        s.PreviousSpec ? undefined : 'Nothing to roll back to: the service was never updated'
                      }
                      disabled={!s.PreviousSpec || rollback.isPending}
                      onClick={() => rollback.mutate(s)}
                    />
                    <Button
                      iconOnly
                      icon={Trash2}
                      variant="danger"
                      label={`Remove ${name}`}
                      onClick={() => setDialog({ kind: 'remove', s })}
                    />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      {shown && open?.view === 'tasks' ? <Tasks service={shown} /> : null}
      {shown && open?.view === 'logs' ? <ServiceLogs key={shown.ID} service={shown} /> : null}
      {dialog?.kind === 'create' ? <CreateService onClose={() => setDialog(undefined)} /> : null}
      {dialog?.kind === 'scale' || dialog?.kind === 'image' ? (
        <UpdateService s={dialog.s} what={dialog.kind} onClose={() => setDialog(undefined)} />
      ) : null}
      {dialog?.kind === 'remove' ? <RemoveService s={dialog.s} onClose={() => setDialog(undefined)} /> : null}
    </>
  );
}

function Tasks({ service }: { service: SwarmService }) {
  const tasks = useTasks(service.ID);
  const rows = [...(tasks.data ?? [])].sort(
    (a, b) => (a.Slot ?? 0) - (b.Slot ?? 0) || b.CreatedAt.localeCompare(a.CreatedAt),
  );
  return (
    <section aria-label={`Tasks of ${service.Spec.Name}`}>
      <h2>Tasks of {service.Spec.Name}</h2>
      <ErrorMessage error={tasks.error} context="Could not list tasks" />
      <table className="table">
        <thead>
          <tr>
            <th>Task</th>
            <th>Slot</th>
            <th>State</th>
            <th>Desired</th>
            <th>Since</th>
            <th>Error</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t) => (
            <tr key={t.ID} data-testid="task-row">
              <td>{shortId(t.ID)}</td>
              <td>{t.Slot ?? '—'}</td>
              <td>
                <span className={`badge state-${t.Status.State}`}>{t.Status.State}</span>
              </td>
              <td>{t.DesiredState}</td>
              <td>{when(t.Status.Timestamp)}</td>
              <td className="error-text ellipsis" title={t.Status.Err}>
                {t.Status.Err ?? ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function ServiceLogs({ service }: { service: SwarmService }) {
  const [lines, setLines] = useState<string[]>([]);
  const [error, setError] = useState<string>();
  useEffect(() => {
    const abort = new AbortController();
    let partial = '';
    void (async () => {
      try {
        const res = await swarm.serviceLogs(service.ID, abort.signal);
        await readChunks(res, !!service.Spec.TaskTemplate?.ContainerSpec?.TTY, (_s, text) => {
          const parts = (partial + text).split('\n');
          partial = parts.pop()!;
          setLines((old) => [...old, ...parts].slice(-2000));
        });
      } catch (err) {
        if (!abort.signal.aborted) setError(errorText(err));
      }
    })();
    return () => abort.abort();
  }, [service.ID, service.Spec.TaskTemplate?.ContainerSpec?.TTY]);
  return (
    <section aria-label={`Logs of ${service.Spec.Name}`}>
      <h2>Logs of {service.Spec.Name}</h2>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      <pre className="logs swarm-logs">{lines.join('\n') || 'No output yet.'}</pre>
    </section>
  );
}

/** "8080:80", "8080:80/udp" or "80" (a port the swarm picks) as the API's port configs. */
function parsePorts(text: string): PortConfig[] {
  return text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((p) => {
      const m = /^(?:(\d+):)?(\d+)(?:\/(tcp|udp|sctp))?$/.exec(p);
      if (!m) throw new Error(`Port "${p}" needs the form published:target, as 8080:80 or 8080:80/udp.`);
      return {
        Protocol: (m[3] ?? 'tcp') as PortConfig['Protocol'],
        TargetPort: Number(m[2]),
        PublishedPort: m[1] ? Number(m[1]) : undefined,
      };
    });
}

function CreateService({ onClose }: { onClose: () => void }) {
  const [name, setName] = useState('');
  const [image, setImage] = useState('');
  const [mode, setMode] = useState<'replicated' | 'global'>('replicated');
  const [replicas, setReplicas] = useState(1);
  const [command, setCommand] = useState('');
  const [ports, setPorts] = useState('');
  const create = useSwarmChange((spec: ServiceSpec) => swarm.createService(spec));
  const [error, setError] = useState<string>();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    try {
      const cmd = splitCommand(command);
      const published = parsePorts(ports);
      create.mutate(
        {
          Name: name.trim(),
          TaskTemplate: { ContainerSpec: { Image: image.trim(), ...(cmd.length ? { Command: cmd } : {}) } },
          Mode: mode === 'global' ? { Global: {} } : { Replicated: { Replicas: replicas } },
          ...(published.length ? { EndpointSpec: { Ports: published } } : {}),
        },
        { onSuccess: onClose },
      );
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <Dialog title="Create a service" onClose={onClose}>
      <form className="form" onSubmit={submit}>
        <div className="row">
          <label>
            Name
            <input value={name} onChange={(e) => setName(e.target.value)} required data-autofocus />
          </label>
          <label>
            Image
            <input value={image} onChange={(e) => setImage(e.target.value)} required placeholder="name:tag" />
          </label>
        </div>
        <div className="row">
          <label>
            Mode
            <select value={mode} onChange={(e) => setMode(e.target.value as 'replicated' | 'global')}>
              <option value="replicated">replicated</option>
              <option value="global">global (one task a node)</option>
            </select>
          </label>
          <label>
            Replicas
            <input
              type="number"
              min={0}
              value={replicas}
              disabled={mode === 'global'}
              onChange={(e) => setReplicas(Number(e.target.value))}
            />
          </label>
        </div>
        <label>
          Command (optional)
          <input value={command} onChange={(e) => setCommand(e.target.value)} placeholder="the image's own" />
        </label>
        <label>
          Published ports (optional)
          <input value={ports} onChange={(e) => setPorts(e.target.value)} placeholder="8080:80, 53:53/udp" />
        </label>
        {error || create.error ? (
          <p className="error" role="alert">
            {error ?? errorText(create.error)}
          </p>
        ) : null}
        <footer>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn-primary" disabled={create.isPending}>
            Create service
          </button>
        </footer>
      </form>
    </Dialog>
  );
}

/** Scale (replicas) or update the image: the current spec with the one field changed. */
function UpdateService({
  s,
  what,
  onClose,
}: {
  s: SwarmService;
  what: 'scale' | 'image';
  onClose: () => void;
}) {
  const [replicas, setReplicas] = useState(s.Spec.Mode?.Replicated?.Replicas ?? 1);
  const [image, setImage] = useState(imageOf(s.Spec));
  const update = useSwarmChange(async () => {
    // The service as it is now: another change since the list was read would make ours stale.
    const current = await swarm.service(s.ID);
    const spec: ServiceSpec =
      what === 'scale'
        ? { ...current.Spec, Mode: { Replicated: { Replicas: replicas } } }
        : {
            ...current.Spec,
            TaskTemplate: {
              ...current.Spec.TaskTemplate,
              ContainerSpec: { ...current.Spec.TaskTemplate?.ContainerSpec, Image: image.trim() },
            },
          };
    return swarm.updateService(current, spec);
  });
  const name = s.Spec.Name;
  return (
    <Dialog title={what === 'scale' ? `Scale ${name}` : `Update the image of ${name}`} onClose={onClose}>
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          update.mutate(undefined, { onSuccess: onClose });
        }}
      >
        {what === 'scale' ? (
          <label>
            Replicas
            <input
              type="number"
              min={0}
              value={replicas}
              onChange={(e) => setReplicas(Number(e.target.value))}
              data-autofocus
            />
          </label>
        ) : (
          <label>
            Image
            <input value={image} onChange={(e) => setImage(e.target.value)} required data-autofocus />
          </label>
        )}
        <ErrorMessage error={update.error} context={`Could not update ${name}`} />
        <footer>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn-primary" disabled={update.isPending}>
            {what === 'scale' ? 'Scale' : 'Update'}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}

function RemoveService({ s, onClose }: { s: SwarmService; onClose: () => void }) {
  // The dialog closes at once: a refusal comes back as a toast that stays.
  const remove = useSwarmChange((id: string) =>
    swarm
      .removeService(id)
      .catch((err: unknown) => toast('failed', `Could not remove ${s.Spec.Name}: ${errorText(err)}`)),
  );
  return (
    <ConfirmDialog
      title={`Remove service ${s.Spec.Name}?`}
      action="Remove service"
      onConfirm={() => remove.mutate(s.ID)}
      onClose={onClose}
    >
      <p>Its tasks are stopped on every node and the service is gone; its image stays.</p>
    </ConfirmDialog>
  );
}

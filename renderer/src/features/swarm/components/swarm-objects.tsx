// The swarm's nodes, and its secrets and configs: created from a name and a value, removed; a
// secret's value is sent once and never shown back (the engine does not give it).
import { useState, type FormEvent } from 'react';
import { Plus, Trash2 } from 'lucide-react';
import { errorText } from '../../../api/gateway';
import { ConfirmDialog } from '../../../app/ui/confirm-dialog';
import { ErrorMessage } from '../../../app/ui/error-message';
import { shortId, when } from '../../../app/ui/format';
import { Button } from '../../../app/ui/button';
import { useNodes, useSwarmChange, useSwarmObjects } from '../queries';
import { swarm, type ObjectKind, type SwarmObject } from '../swarm-api';

export function NodesTab() {
  const nodes = useNodes();
  return (
    <>
      <ErrorMessage error={nodes.error} context="Could not list nodes" />
      <table className="table" aria-label="Nodes">
        <thead>
          <tr>
            <th>Host name</th>
            <th>Role</th>
            <th>State</th>
            <th>Availability</th>
            <th>Manager</th>
            <th>Address</th>
            <th>Engine</th>
          </tr>
        </thead>
        <tbody>
          {(nodes.data ?? []).map((n) => (
            <tr key={n.ID}>
              <td>
                <strong>{n.Description.Hostname}</strong> <span className="muted">{shortId(n.ID)}</span>
              </td>
              <td>{n.Spec.Role}</td>
              <td>
                <span className={`badge state-${n.Status.State === 'ready' ? 'running' : 'exited'}`}>
                  {n.Status.State}
                </span>
              </td>
              <td>{n.Spec.Availability}</td>
              <td>
                {n.ManagerStatus ? (n.ManagerStatus.Leader ? 'leader' : n.ManagerStatus.Reachability) : '—'}
              </td>
              <td>{n.Status.Addr ?? '—'}</td>
              <td>{n.Description.Engine?.EngineVersion ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

export function ObjectsTab({ kind }: { kind: ObjectKind }) {
  const noun = kind === 'secrets' ? 'secret' : 'config';
  const list = useSwarmObjects(kind);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [removing, setRemoving] = useState<SwarmObject>();
  const create = useSwarmChange(async () => {
    await swarm.createObject(kind, name.trim(), value);
    setName('');
    // The value leaves the page once sent: nothing keeps it.
    setValue('');
  });
  const remove = useSwarmChange((o: SwarmObject) => swarm.removeObject(kind, o.ID));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(undefined);
  };
  return (
    <>
      <form className="form swarm-object-form" onSubmit={submit} aria-label={`Create a ${noun}`}>
        <div className="row">
          <label>
            Name
            <input value={name} onChange={(e) => setName(e.target.value)} required />
          </label>
          <label>
            Value
            {kind === 'secrets' ? (
              <input
                type="password"
                autoComplete="off"
                value={value}
                onChange={(e) => setValue(e.target.value)}
                required
              />
            ) : (
              <textarea rows={1} value={value} onChange={(e) => setValue(e.target.value)} required />
            )}
          </label>
          <Button
            type="submit"
            icon={Plus}
            variant="primary"
            label={`Create ${noun}`}
            disabled={create.isPending}
          />
        </div>
        {kind === 'secrets' ? (
          <p className="muted">
            The value goes to the swarm&apos;s managers, encrypted; neither the engine nor this app shows it
            again.
          </p>
        ) : null}
      </form>
      {create.error ? (
        <p className="error" role="alert">
          {errorText(create.error)}
        </p>
      ) : null}
      <ErrorMessage error={remove.error} context={`Could not remove the ${noun}`} />
      <ErrorMessage error={list.error} context={`Could not list ${kind}`} />
      <table className="table" aria-label={kind === 'secrets' ? 'Secrets' : 'Configs'}>
        <thead>
          <tr>
            <th>Name</th>
            <th>ID</th>
            <th>Created</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {(list.data ?? []).map((o) => (
            <tr key={o.ID} data-object={o.Spec.Name}>
              <td>
                <strong>{o.Spec.Name}</strong>
              </td>
              <td>{shortId(o.ID)}</td>
              <td>{when(o.CreatedAt)}</td>
              <td className="actions">
                <Button
                  iconOnly
                  icon={Trash2}
                  variant="danger"
                  label={`Remove ${o.Spec.Name}`}
                  onClick={() => setRemoving(o)}
                />
              </td>
            </tr>
          ))}
          {list.data?.length === 0 ? (
            <tr>
              <td colSpan={4} className="muted">
                No {kind} yet.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      {removing ? (
        <ConfirmDialog
          title={`Remove ${noun} ${removing.Spec.Name}?`}
          action="Remove"
          onConfirm={() => remove.mutate(removing)}
          onClose={() => setRemoving(undefined)}
        >
          <p>The engine refuses while a service uses it.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

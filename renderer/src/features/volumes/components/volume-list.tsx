// Volumes: list with size and the containers using each (links to them); browse a volume's files
// (its name, or the row's button); create (a dialog), remove and prune, each destructive action
// confirmed in the app with the exact volume named. A volume in use is not offered for removal:
// the row says which containers hold it.
import { useState } from 'react';
import { Eraser, FolderOpen, HardDrive, Plus, Trash2 } from 'lucide-react';
import { Button } from '../../../app/ui/button';
import { EmptyState } from '../../../app/ui/empty-state';
import { EngineDown } from '../../../app/ui/engine-down';
import { useIntentHandler } from '../../../app/state/intent';
import { rowKeys } from '../../../app/ui/row-keys';
import { navigate } from '../../../app/state/router';
import { toast } from '../../../app/ui/toasts';
import { useEngineUp } from '../../../app/state/use-desktop-state';
import { ConfirmDialog } from '../../../app/ui/confirm-dialog';
import { ErrorMessage } from '../../../app/ui/error-message';
import { bytes, plural } from '../../../app/ui/format';
import { ApiError } from '../../../api/gateway';
import { useVolumeMutations, useVolumes, useVolumeSizes, useVolumeUsers } from '../queries';
import { inUseMessage } from '../volume-form';
import { CreateVolumeDialog } from './create-volume-dialog';

type Pending = { kind: 'remove'; name: string } | { kind: 'prune'; names: string[] };

export function VolumeList() {
  const volumes = useVolumes();
  const sizes = useVolumeSizes();
  const users = useVolumeUsers();
  const { remove, prune } = useVolumeMutations();
  const [creating, setCreating] = useState(false);
  const up = useEngineUp();
  const [pending, setPending] = useState<Pending | undefined>();
  const list = volumes.data?.Volumes ?? [];
  const unused = list.filter((v) => !users.has(v.Name)).map((v) => v.Name);
  const askRemove = (name: string) => (users.has(name) ? undefined : setPending({ kind: 'remove', name }));
  // A container may have taken the volume since the list was read: the engine's refusal, in words.
  const ids = new Map([...users.values()].flat().map((u) => [u.id, u.name]));
  const removeError =
    remove.error instanceof ApiError && remove.error.status === 409
      ? (inUseMessage(remove.error.message, (id) => ids.get(id)) ?? remove.error)
      : remove.error;
  useIntentHandler('volume.create', true, () => setCreating(true));
  useIntentHandler('volume.prune', volumes.isSuccess, () =>
    unused.length
      ? setPending({ kind: 'prune', names: unused })
      : toast('done', 'No unused volumes to prune'),
  );
  useIntentHandler('volume.remove', volumes.isSuccess, (n) => {
    if (!n) return;
    const holders = users.get(n);
    if (holders)
      toast('failed', `Volume ${n} is in use by ${holders.map((u) => u.name).join(', ')}: remove them first`);
    else askRemove(n);
  });
  const confirm = () => {
    if (pending?.kind === 'remove') remove.mutate(pending.name);
    if (pending?.kind === 'prune') prune.mutate();
  };
  return (
    <section className="screen">
      <header className="toolbar">
        <h1>Volumes</h1>
        <span className="spacer" />
        <Button
          icon={Plus}
          variant="primary"
          label="New volume…"
          disabled={!up}
          onClick={() => setCreating(true)}
        />
        <Button
          icon={Eraser}
          label="Prune unused"
          disabled={unused.length === 0}
          onClick={() => setPending({ kind: 'prune', names: unused })}
        />
      </header>
      {up ? null : <EngineDown />}
      <ErrorMessage error={volumes.error} context="Could not list volumes" />
      <ErrorMessage error={removeError ?? prune.error} />
      {prune.data && (
        <p className="hint" role="status">
          Pruned {prune.data.VolumesDeleted?.length ?? 0} volume
          {prune.data.VolumesDeleted?.length === 1 ? '' : 's'}, {bytes(prune.data.SpaceReclaimed)} reclaimed
        </p>
      )}
      {volumes.data?.Warnings?.map((w) => (
        <p key={w} className="hint">
          {w}
        </p>
      ))}
      {volumes.isSuccess && list.length === 0 && (
        <EmptyState
          icon={HardDrive}
          title="No volumes yet"
          testId="volumes-empty"
          actions={
            <Button icon={Plus} variant="primary" label="New volume…" onClick={() => setCreating(true)} />
          }
        >
          <p>A volume keeps data beyond a container. Create one by name, or run a container with one.</p>
        </EmptyState>
      )}
      {list.length === 0 ? null : (
        <table className="table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Driver</th>
              <th>Size</th>
              <th>Used by</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.map((v) => {
              const size = sizes.data?.get(v.Name);
              const holders = users.get(v.Name);
              return (
                <tr
                  key={v.Name}
                  data-volume={v.Name}
                  data-row
                  onKeyDown={rowKeys({ remove: () => askRemove(v.Name) })}
                >
                  <td title={v.Mountpoint}>
                    <a href={`#/volumes/${encodeURIComponent(v.Name)}`}>{v.Name}</a>
                  </td>
                  <td>{v.Options?.type ? `${v.Driver} (${v.Options.type})` : v.Driver}</td>
                  <td>{size === undefined || size < 0 ? '…' : bytes(size)}</td>
                  <td className="truncate">
                    {holders ? (
                      <>
                        <span className="badge in-use">in use</span>{' '}
                        {holders.map((u, i) => (
                          <span key={u.id}>
                            {i ? ', ' : ''}
                            <a href={`#/containers/${u.id}/summary`}>{u.name}</a>
                          </span>
                        ))}
                      </>
                    ) : (
                      'unused'
                    )}
                  </td>
                  <td>{v.CreatedAt ? new Date(v.CreatedAt).toLocaleString() : ''}</td>
                  <td className="actions">
                    <Button
                      iconOnly
                      icon={FolderOpen}
                      label={`Browse files of volume ${v.Name}`}
                      onClick={() => navigate('volumes', v.Name)}
                    />
                    <Button
                      iconOnly
                      icon={Trash2}
                      variant="danger"
                      label={
                        holders
                          ? `Volume ${v.Name} is in use by ${holders.map((u) => u.name).join(', ')}: remove those containers to remove it`
                          : `Remove volume ${v.Name}`
                      }
                      disabled={!!holders}
                      onClick={() => askRemove(v.Name)}
                    />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {creating ? <CreateVolumeDialog onClose={() => setCreating(false)} /> : null}
      {pending && (
        <ConfirmDialog
          title={pending.kind === 'remove' ? `Remove volume ${pending.name}?` : 'Prune unused volumes?'}
          action={pending.kind === 'remove' ? 'Remove' : 'Prune'}
          onConfirm={confirm}
          onClose={() => setPending(undefined)}
        >
          <p>
            {pending.kind === 'remove'
              ? `The data in ${pending.name} is deleted for good.`
              : `${plural(pending.names.length, 'volume')} no container uses will be deleted for good: ${pending.names.join(', ')}.`}
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

// Volumes: list with size and the containers using each; browse a volume's files (its name, or
// the row's button); create, remove and prune, each destructive action confirmed in the app with
// the exact volume named.
import { useRef, useState } from 'react';
import { Eraser, FolderOpen, HardDrive, Plus, Trash2 } from 'lucide-react';
import { Button } from '../../../app/ui/button';
import { EmptyState } from '../../../app/ui/empty-state';
import { EngineDown } from '../../../app/ui/engine-down';
import { useIntentHandler } from '../../../app/ui/intent';
import { rowKeys } from '../../../app/ui/row-keys';
import { navigate } from '../../../app/router';
import { toast } from '../../../app/toasts';
import { useEngineUp } from '../../../app/use-desktop-state';
import { ConfirmDialog } from '../../../app/confirm-dialog';
import { ErrorMessage } from '../../../app/error-message';
import { bytes, plural } from '../../../app/format';
import { useVolumeMutations, useVolumes, useVolumeSizes, useVolumeUsers } from '../queries';

type Pending = { kind: 'remove'; name: string } | { kind: 'prune'; names: string[] };

export function VolumeList() {
  const volumes = useVolumes();
  const sizes = useVolumeSizes();
  const users = useVolumeUsers();
  const { create, remove, prune } = useVolumeMutations();
  const [name, setName] = useState('');
  const up = useEngineUp();
  const nameInput = useRef<HTMLInputElement>(null);
  const [pending, setPending] = useState<Pending | undefined>();
  const list = volumes.data?.Volumes ?? [];
  const unused = list.filter((v) => !users.has(v.Name)).map((v) => v.Name);
  useIntentHandler('volume.create', true, () => nameInput.current?.focus());
  useIntentHandler('volume.prune', volumes.isSuccess, () =>
    unused.length
      ? setPending({ kind: 'prune', names: unused })
      : toast('done', 'No unused volumes to prune'),
  );
  useIntentHandler('volume.remove', volumes.isSuccess, (n) => n && setPending({ kind: 'remove', name: n }));
  const confirm = () => {
    if (pending?.kind === 'remove') remove.mutate(pending.name);
    if (pending?.kind === 'prune') prune.mutate();
  };
  return (
    <section className="screen">
      <header className="toolbar">
        <h1>Volumes</h1>
        <span className="spacer" />
        <form
          className="toolbar"
          onSubmit={(e) => (e.preventDefault(), create.mutate(name, { onSuccess: () => setName('') }))}
        >
          <input
            ref={nameInput}
            aria-label="New volume name"
            placeholder="name (optional)"
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
          <Button type="submit" icon={Plus} variant="primary" label="Create volume" disabled={!up} />
        </form>
        <Button
          icon={Eraser}
          label="Prune unused"
          disabled={unused.length === 0}
          onClick={() => setPending({ kind: 'prune', names: unused })}
        />
      </header>
      {up ? null : <EngineDown />}
      <ErrorMessage error={volumes.error} context="Could not list volumes" />
      <ErrorMessage error={create.error ?? remove.error ?? prune.error} />
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
            <Button
              icon={Plus}
              variant="primary"
              label="New volume…"
              onClick={() => nameInput.current?.focus()}
            />
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
              return (
                <tr
                  key={v.Name}
                  data-volume={v.Name}
                  data-row
                  onKeyDown={rowKeys({ remove: () => setPending({ kind: 'remove', name: v.Name }) })}
                >
                  <td title={v.Mountpoint}>
                    <a href={`#/volumes/${encodeURIComponent(v.Name)}`}>{v.Name}</a>
                  </td>
                  <td>{v.Options?.type ? `${v.Driver} (${v.Options.type})` : v.Driver}</td>
                  <td>{size === undefined || size < 0 ? '…' : bytes(size)}</td>
                  <td className="truncate" title={users.get(v.Name)?.join(', ')}>
                    {users.get(v.Name)?.join(', ') ?? 'unused'}
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
                      label={`Remove volume ${v.Name}`}
                      onClick={() => setPending({ kind: 'remove', name: v.Name })}
                    />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
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

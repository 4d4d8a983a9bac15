// Images: list with tags, size and age; load, import, pull, save, tag, push, remove (409 explained),
// history.
import { useState, type FormEvent } from 'react';
import { engine } from '../../../api/engine-client';
import { ConfirmDialog } from '../../../app/ui/confirm-dialog';
import { ErrorMessage } from '../../../app/ui/error-message';
import { RunDialog } from '../../containers/components/run-dialog';
import { Dialog } from '../../../app/ui/dialog';
import { ago, bytes, shortId } from '../../../app/ui/format';
import { useEngineUp } from '../../../app/state/use-desktop-state';
import { explainRemoveError, useImageMutations } from '../queries';
import { archiveName } from '../names';
import { navigate } from '../../../app/state/router';
import { ArchiveDialog } from './archive-dialog';
import { ProgressDialog } from './progress-dialog';
import { SearchBox } from '../../../app/ui/search-box';
import { Download, FileArchive, FileInput, History, Layers, Play, Tag, Trash2, Upload } from 'lucide-react';
import { Button } from '../../../app/ui/button';
import { EmptyState } from '../../../app/ui/empty-state';
import { EngineDown } from '../../../app/ui/engine-down';
import { rowKeys } from '../../../app/ui/row-keys';
import './images.css';
import { useContainers, useImages } from '../../../app/state/engine-lists';
import { useImagesUi } from '../../../app/state/images-ui';
import { splitTag } from '../../../api/pull-progress';

export function ImageList() {
  const ui = useImagesUi();
  const [dragging, setDragging] = useState(false);
  const up = useEngineUp();
  const images = useImages();
  const { remove } = useImageMutations();
  const containers = useContainers(true);
  const users = new Map<string, number>();
  for (const c of containers.data ?? []) users.set(c.ImageID, (users.get(c.ImageID) ?? 0) + 1);
  // One row per name, as `docker images` shows them: push and remove act on that name.
  const rows = (images.data ?? [])
    .flatMap((image) => {
      // An untagged image is listed with the legacy name "<none>:<none>": it has no name to act on.
      const names = (image.RepoTags ?? []).filter((t) => t !== '<none>:<none>');
      return (names.length ? names : [undefined]).map((name) => ({ image, name }));
    })
    .filter(({ image, name }) => `${name ?? ''} ${image.Id}`.toLowerCase().includes(ui.search.toLowerCase()));
  const explanation = explainRemoveError(remove.error);
  const getImage = (
    <>
      <Button icon={FileArchive} label="Load…" onClick={() => ui.open({ kind: 'load' })} disabled={!up} />
      <Button icon={FileInput} label="Import…" onClick={() => ui.open({ kind: 'import' })} disabled={!up} />
      <Button
        icon={Download}
        variant="primary"
        label="Pull…"
        onClick={() => ui.open({ kind: 'pull' })}
        disabled={!up}
      />
    </>
  );
  return (
    <section
      className={`screen${dragging ? ' drop-target' : ''}`}
      onDragOver={(e) => {
        if (!up || !e.dataTransfer.types.includes('Files')) return;
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={(e) => {
        // Leaving for a child of the screen is no leaving.
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
      }}
      onDrop={(e) => {
        setDragging(false);
        const file = e.dataTransfer.files[0];
        if (!up || !file) return;
        e.preventDefault();
        ui.open({ kind: 'load', file });
      }}
    >
      {dragging ? (
        <div className="drop-hint" aria-hidden>
          <FileArchive size={32} />
          Drop the archive to load it
        </div>
      ) : null}
      <header className="toolbar">
        <h1>Images</h1>
        <SearchBox
          label="Search images"
          placeholder="Search images"
          value={ui.search}
          onChange={ui.setSearch}
        />
        <span className="spacer" />
        {getImage}
      </header>
      {up ? null : <EngineDown />}
      <ErrorMessage error={images.error} context="Could not list images" />
      <ErrorMessage error={remove.error} context="Could not remove the image" />
      {explanation ? <p className="hint">{explanation}</p> : null}
      {rows.length === 0 ? null : (
        <table className="table">
          <thead>
            <tr>
              <th>Name</th>
              <th className="col-wide">Id</th>
              <th>Size</th>
              <th>Created</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ image: i, name }) => (
              <tr
                key={`${i.Id} ${name ?? ''}`}
                data-row
                onKeyDown={rowKeys({
                  open: () => navigate('images', i.Id),
                  remove: () =>
                    ui.open({
                      kind: 'remove',
                      id: name ?? i.Id,
                      last: !name || (i.RepoTags?.length ?? 0) <= 1,
                    }),
                })}
              >
                <td className="truncate" title={name}>
                  <a href={`#/images/${encodeURIComponent(i.Id)}`} data-testid="image-link">
                    {name ?? '<none>'}
                  </a>{' '}
                  {users.get(i.Id) ? (
                    <span
                      className="badge in-use"
                      title={`${users.get(i.Id)} container${users.get(i.Id) === 1 ? '' : 's'} use this image`}
                    >
                      in use
                    </span>
                  ) : null}
                </td>
                <td className="col-wide">
                  <code>{shortId(i.Id)}</code>
                </td>
                <td>{bytes(i.Size)}</td>
                <td>{ago(i.Created)}</td>
                <td className="actions">
                  <Button
                    icon={Play}
                    label="Run…"
                    onClick={() => ui.open({ kind: 'run', image: name ?? i.Id })}
                    disabled={!up}
                  />
                  <Button
                    iconOnly
                    icon={Layers}
                    label="Layers"
                    onClick={() => navigate('images', i.Id, 'layers')}
                  />
                  <Button
                    iconOnly
                    icon={History}
                    label="History"
                    onClick={() => navigate('images', i.Id, 'history')}
                  />
                  <Button
                    iconOnly
                    icon={Tag}
                    label="Tag…"
                    onClick={() => ui.open({ kind: 'tag', id: i.Id })}
                  />
                  <Button
                    iconOnly
                    icon={Upload}
                    label="Push…"
                    disabled={!name}
                    onClick={() => name && ui.open({ kind: 'push', name })}
                  />
                  <a
                    className="button"
                    href={engine.saveUrl(name ?? i.Id)}
                    download={archiveName(name ?? i.Id)}
                    title="Save the image to a file, as docker save"
                    aria-label="Save"
                  >
                    <Download size={16} aria-hidden />
                  </a>
                  <Button
                    iconOnly
                    icon={Trash2}
                    variant="danger"
                    label="Remove"
                    onClick={() =>
                      ui.open({
                        kind: 'remove',
                        id: name ?? i.Id,
                        last: !name || (i.RepoTags?.length ?? 0) <= 1,
                      })
                    }
                  />
                  {explanation && remove.variables?.id === (name ?? i.Id) ? (
                    <button
                      className="danger"
                      onClick={() => ui.open({ kind: 'remove', id: name ?? i.Id, last: true, force: true })}
                    >
                      Force remove
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {images.isSuccess && rows.length === 0 ? (
        ui.search ? (
          <p className="muted" data-testid="images-empty">
            No image matches the search.
          </p>
        ) : (
          <EmptyState icon={Layers} title="No images yet" testId="images-empty" actions={getImage}>
            <p>
              Load an archive made by docker save (or drop it here), import a root filesystem tar, or pull
              from a registry.
            </p>
          </EmptyState>
        )
      ) : null}
      {ui.dialog?.kind === 'pull' ? <ProgressDialog mode="pull" onClose={() => ui.open(undefined)} /> : null}
      {ui.dialog?.kind === 'push' ? (
        <ProgressDialog mode="push" name={ui.dialog.name} onClose={() => ui.open(undefined)} />
      ) : null}
      {ui.dialog?.kind === 'load' || ui.dialog?.kind === 'import' ? (
        <ArchiveDialog
          mode={ui.dialog.kind}
          file={ui.dialog.kind === 'load' ? ui.dialog.file : undefined}
          onClose={() => ui.open(undefined)}
        />
      ) : null}
      {ui.dialog?.kind === 'run' ? (
        <RunDialog image={ui.dialog.image} onClose={() => ui.open(undefined)} />
      ) : null}
      {ui.dialog?.kind === 'remove' ? (
        <ConfirmDialog
          title={`${ui.dialog.force ? 'Force remove' : 'Remove'} ${ui.dialog.id.startsWith('sha256:') ? shortId(ui.dialog.id) : ui.dialog.id}?`}
          action={ui.dialog.force ? 'Force remove' : 'Remove'}
          onConfirm={(
            ({ id, force = false }) =>
            () =>
              remove.mutate({ id, force })
          )(ui.dialog)}
          onClose={() => ui.open(undefined)}
        >
          <p>
            {ui.dialog.force
              ? 'The name goes although containers use the image: they keep it, listed by its ID, until they are removed.'
              : ui.dialog.last
                ? 'The image and its layers that no other image shares are deleted.'
                : 'Only this name is removed: the image keeps its other names.'}
          </p>
        </ConfirmDialog>
      ) : null}
      {ui.dialog?.kind === 'tag' ? <TagDialog id={ui.dialog.id} onClose={() => ui.open(undefined)} /> : null}
    </section>
  );
}

function TagDialog({ id, onClose }: { id: string; onClose: () => void }) {
  const [target, setTarget] = useState('');
  const { tag } = useImageMutations();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const [repo, t] = splitTag(target.trim());
    tag.mutate({ id, repo, tag: t }, { onSuccess: onClose });
  };
  return (
    <Dialog title={`Tag ${shortId(id)}`} onClose={onClose}>
      <form className="form" onSubmit={submit}>
        <label>
          New name{' '}
          <input
            required
            autoFocus
            value={target}
            onChange={(e) => setTarget(e.target.value)}
            placeholder="127.0.0.1:5000/app:1.0"
          />
        </label>
        <ErrorMessage error={tag.error} context="Could not tag" />
        <footer>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit">Tag</button>
        </footer>
      </form>
    </Dialog>
  );
}

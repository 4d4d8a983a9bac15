// One volume's files, in the file browser the containers' Files tab uses, through a helper
// container that mounts the volume (volume-helper.ts); it goes when this screen does.
import { Download, FileArchive, FileInput, Layers, X } from 'lucide-react';
import { FileBrowser } from '../../../app/ui/file-browser';
import { ErrorMessage } from '../../../app/ui/error-message';
import { navigate } from '../../../app/state/router';
import { Button } from '../../../app/ui/button';
import { Breadcrumb } from '../../../app/ui/detail';
import { EmptyState } from '../../../app/ui/empty-state';
import { NoLocalImage, useVolumeHelper, VOLUME_MOUNT } from '../volume-helper';
import { useImagesUi, type ImageDialog } from '../../../app/state/images-ui';

/** The images screen, with one of its ways to get an image open. */
const getImage = (d: ImageDialog) => () => (navigate('images'), useImagesUi.getState().open(d));

export function VolumeBrowser({ name }: { name: string }) {
  const helper = useVolumeHelper(name);
  return (
    <section className="screen detail">
      <header className="toolbar">
        <Breadcrumb href="#/volumes" label="Volumes" title={name} />
        <span className="spacer" />
        <Button icon={X} label="Close" onClick={() => navigate('volumes')} />
      </header>
      {helper.error instanceof NoLocalImage ? (
        <EmptyState
          icon={Layers}
          title="No image to browse with"
          testId="volume-browser-no-image"
          actions={
            <>
              <Button icon={FileArchive} label="Load…" onClick={getImage({ kind: 'load' })} />
              <Button icon={FileInput} label="Import…" onClick={getImage({ kind: 'import' })} />
              <Button icon={Download} variant="primary" label="Pull…" onClick={getImage({ kind: 'pull' })} />
            </>
          }
        >
          <p>
            {helper.error.message}. The volume is read through a container that mounts it and never runs: any
            image will do, and nothing is pulled for it.
          </p>
        </EmptyState>
      ) : (
        <ErrorMessage error={helper.error} context={`Could not open volume ${name}`} />
      )}
      {helper.id ? (
        <FileBrowser
          key={helper.id}
          id={helper.id}
          root={VOLUME_MOUNT}
          rootName={name}
          noDelete="The Engine API cannot delete files: delete them from a running container that uses the volume"
        />
      ) : helper.error ? null : (
        <p className="muted">Opening the volume…</p>
      )}
    </section>
  );
}

// Browse a container's files through the archive API: the directory's tar streams in and its
// direct children are listed as they arrive; download a file (as itself) or a folder (tar); drop files to
// upload them into the current folder. A container's Files tab starts at "/"; a volume's browser
// at the helper container's mount point, which it never goes above, so the user sees the volume only.
import { useEffect, useState, type DragEvent } from 'react';
import { engine } from '../../api/engine-client';
import { firstFileOf, tarReader, type TarEntry } from '../../api/tar-reader';
import { tarOf } from '../../api/tar-writer';
import { ErrorMessage } from './error-message';
import { bytes, plural } from './format';
import { ConfirmDialog } from './confirm-dialog';
import { Dialog } from './dialog';
import { saveFile } from './save-file';
import { rowKeys } from './row-keys';

function join(dir: string, name: string): string {
  return `${dir.replace(/\/$/, '')}/${name}`;
}

/** Larger files are downloaded, not shown. */
const viewLimit = 1 << 20;

export interface FileBrowserProps {
  /** The container whose archive API is read and written. */
  id: string;
  /** The folder the browser starts in and never goes above. */
  root: string;
  /** What the root is called in the name of its tar. */
  rootName: string;
  /** Why files cannot be deleted here (deleting runs rm in the container), or nothing when they can. */
  noDelete?: string;
}

export function FileBrowser({ id, root, rootName, noDelete }: FileBrowserProps) {
  const [dir, setDir] = useState(root);
  /** The path as the user sees it: from the root, which is "/". */
  const shown = (path: string) => '/' + path.slice(root.length).replace(/^\//, '');
  const [entries, setEntries] = useState<TarEntry[]>([]);
  const [reading, setReading] = useState(false);
  const [error, setError] = useState<unknown>();
  const [uploaded, setUploaded] = useState('');
  const [reload, setReload] = useState(0);
  const [viewing, setViewing] = useState<{ name: string; text: string }>();
  const [deleting, setDeleting] = useState<string>();

  useEffect(() => {
    const abort = new AbortController();
    const found = new Map<string, TarEntry>();
    setEntries([]);
    setError(undefined);
    setReading(true);
    (async () => {
      // "dir/." copies the directory's contents: entry names are relative to it.
      const res = await engine.archive(id, dir.replace(/\/$/, '') + '/.', abort.signal);
      const reader = res.body!.getReader();
      let changed = false;
      const feed = tarReader((e) => {
        const rel = e.name.replace(/^\.\//, '').replace(/\/$/, '');
        if (!rel || rel === '.') return;
        const [first, ...more] = rel.split('/');
        if (found.has(first)) return;
        found.set(first, more.length ? { ...e, name: first, type: 'dir', size: 0 } : { ...e, name: first });
        changed = true;
      });
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        feed(r.value);
        if (changed) {
          changed = false;
          setEntries([...found.values()].sort((a, b) => a.name.localeCompare(b.name)));
        }
      }
    })()
      .catch((err: unknown) => {
        if ((err as Error).name !== 'AbortError') setError(err);
      })
      .finally(() => setReading(false));
    return () => abort.abort();
  }, [id, dir, reload]);

  const upload = async (files: File[]) => {
    try {
      await engine.putArchive(id, dir, await tarOf(files));
      setUploaded(`Uploaded ${files.map((f) => f.name).join(', ')} to ${shown(dir)}`);
      setReload((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    void upload([...e.dataTransfer.files]);
  };

  // The archive API always answers a tar; a file is taken out of it so the user gets the file.
  const downloadFile = async (name: string) => {
    try {
      const res = await engine.archive(id, join(dir, name));
      const content = firstFileOf(new Uint8Array(await res.arrayBuffer()));
      if (!content) throw new Error(`${shown(join(dir, name))} is not a regular file`);
      saveFile([content as BlobPart], name);
    } catch (err) {
      setError(err);
    }
  };

  const view = async (name: string) => {
    try {
      const res = await engine.archive(id, join(dir, name));
      const content = firstFileOf(new Uint8Array(await res.arrayBuffer()));
      if (!content) throw new Error(`${shown(join(dir, name))} is not a regular file`);
      setViewing({ name: shown(join(dir, name)), text: new TextDecoder().decode(content) });
    } catch (err) {
      setError(err);
    }
  };

  // The Engine API has no file deletion: as other desktop apps do, `rm` runs in the container.
  const remove = async (name: string) => {
    try {
      const { exitCode, output } = await engine.execRun(id, ['rm', '-rf', '--', join(dir, name)]);
      if (exitCode === 126 || exitCode === 127) {
        throw new Error('Deleting runs rm in the container, and this container has no rm');
      }
      if (exitCode !== 0) throw new Error(`rm exited with ${exitCode}: ${output.trim()}`);
      setUploaded(`Deleted ${shown(join(dir, name))}`);
      setReload((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };

  const parts = shown(dir).split('/').filter(Boolean);
  return (
    <div className="files" onDragOver={(e) => e.preventDefault()} onDrop={onDrop}>
      <nav className="breadcrumbs" aria-label="Path">
        <button onClick={() => setDir(root)}>/</button>
        {parts.map((p, i) => (
          <button key={i} onClick={() => setDir(join(root, parts.slice(0, i + 1).join('/')))}>
            {p}/
          </button>
        ))}
        <a className="button" href={engine.archiveUrl(id, dir)} download={`${parts.at(-1) ?? rootName}.tar`}>
          Download this folder (tar)
        </a>
        {reading ? (
          <span className="muted">reading…</span>
        ) : (
          <span className="muted">{plural(entries.length, 'entry', 'entries')}</span>
        )}
      </nav>
      <p className="muted">
        Drop files here to upload them into {shown(dir)}, or{' '}
        <label className="button">
          choose files to upload…
          <input
            type="file"
            multiple
            className="sr-only"
            onChange={(e) => {
              const files = [...(e.target.files ?? [])];
              e.target.value = '';
              if (files.length) void upload(files);
            }}
          />
        </label>
      </p>
      {uploaded ? <p className="ok">{uploaded}</p> : null}
      <ErrorMessage error={error} context="Files" />
      <table className="table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Size</th>
            <th>Mode</th>
            <th>Modified</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr
              key={e.name}
              data-row
              onKeyDown={rowKeys({ remove: noDelete ? undefined : () => setDeleting(e.name) })}
            >
              <td>
                {e.type === 'dir' ? (
                  <button className="link" onClick={() => setDir(join(dir, e.name))}>
                    {e.name}/
                  </button>
                ) : (
                  <span>
                    {e.name}
                    {e.type === 'symlink' ? ` → ${e.linkTarget}` : ''}
                  </span>
                )}
              </td>
              <td>{e.type === 'file' ? bytes(e.size) : ''}</td>
              <td>
                <code>{(e.mode & 0o7777).toString(8)}</code>
              </td>
              <td>{new Date(e.mtime * 1000).toLocaleString()}</td>
              <td>
                {e.type === 'file' && e.size <= viewLimit ? (
                  <button className="link" onClick={() => view(e.name)}>
                    View
                  </button>
                ) : null}{' '}
                {e.type === 'file' ? (
                  <button className="link" onClick={() => downloadFile(e.name)}>
                    Download
                  </button>
                ) : (
                  <a href={engine.archiveUrl(id, join(dir, e.name))} download={`${e.name}.tar`}>
                    Download (tar)
                  </a>
                )}{' '}
                <button
                  className="link danger"
                  disabled={!!noDelete}
                  title={noDelete}
                  onClick={() => setDeleting(e.name)}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {viewing ? (
        <Dialog title={viewing.name} onClose={() => setViewing(undefined)}>
          <pre className="raw" data-testid="file-content">
            {viewing.text}
          </pre>
          <footer>
            <button onClick={() => setViewing(undefined)}>Close</button>
          </footer>
        </Dialog>
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete ${shown(join(dir, deleting))}?`}
          action="Delete"
          onConfirm={() => void remove(deleting)}
          onClose={() => setDeleting(undefined)}
        >
          <p>
            <code>{shown(join(dir, deleting))}</code> is removed from the container (with what it holds, if it
            is a folder). This cannot be undone.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}

// Browse a container's files through the archive API: the directory's tar streams in and its
// direct children are listed as they arrive; download a file (as itself) or a folder (tar); drop files to
// upload them into the current folder; view a file's text; delete, confirmed in the app (the API
// has no delete: `rm` runs in the container, so the container must be running).
import { useEffect, useState, type DragEvent } from 'react';
import { engine } from '../../../api/engine-client';
import { firstFileOf, tarReader, type TarEntry } from '../../../api/tar-reader';
import { tarOf } from '../../../api/tar-writer';
import { ConfirmDialog } from '../../../app/confirm-dialog';
import { ErrorMessage } from '../../../app/error-message';
import { bytes, dateTime } from '../../../app/format';
import { saveFile } from '../../../app/save-file';

function join(dir: string, name: string): string {
  return `${dir.replace(/\/$/, '')}/${name}`;
}

export function FilesTab({ id }: { id: string }) {
  const [dir, setDir] = useState('/');
  const [entries, setEntries] = useState<TarEntry[]>([]);
  const [reading, setReading] = useState(false);
  const [error, setError] = useState<unknown>();
  const [uploaded, setUploaded] = useState('');
  const [reload, setReload] = useState(0);
  const [viewing, setViewing] = useState<{ path: string; text: string; binary: boolean }>();
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

  const onDrop = async (e: DragEvent) => {
    e.preventDefault();
    try {
      const files = [...e.dataTransfer.files];
      await engine.putArchive(id, dir, await tarOf(files));
      setUploaded(`Uploaded ${files.map((f) => f.name).join(', ')} to ${dir}`);
      setReload((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };

  // The archive API always answers a tar; a file is taken out of it so the user gets the file.
  const fileContent = async (path: string) => {
    const res = await engine.archive(id, path);
    const content = firstFileOf(new Uint8Array(await res.arrayBuffer()));
    if (!content) throw new Error(`${path} is not a regular file`);
    return content;
  };
  const downloadFile = async (name: string) => {
    try {
      saveFile([(await fileContent(join(dir, name))) as BlobPart], name);
    } catch (err) {
      setError(err);
    }
  };
  const viewFile = async (name: string) => {
    try {
      const content = await fileContent(join(dir, name));
      // NUL bytes or invalid UTF-8: not text, so not drawn as text.
      const text = new TextDecoder('utf-8', { fatal: false }).decode(content.subarray(0, 256 * 1024));
      const binary = content.includes(0) || text.includes('\uFFFD');
      setViewing({ path: join(dir, name), text, binary });
    } catch (err) {
      setError(err);
    }
  };
  const deletePath = async (path: string) => {
    try {
      const exitCode = await engine.execRun(id, ['rm', '-rf', '--', path]);
      if (exitCode !== 0) throw new Error(`rm ${path} in the container exited with ${exitCode}`);
      if (viewing?.path === path) setViewing(undefined);
      setReload((n) => n + 1);
    } catch (err) {
      setError(err);
    }
  };

  const parts = dir.split('/').filter(Boolean);
  return (
    <div className="files" onDragOver={(e) => e.preventDefault()} onDrop={onDrop}>
      <nav className="breadcrumbs" aria-label="Path">
        <button onClick={() => setDir('/')}>/</button>
        {parts.map((p, i) => (
          <button key={i} onClick={() => setDir('/' + parts.slice(0, i + 1).join('/'))}>
            {p}/
          </button>
        ))}
        <a className="button" href={engine.archiveUrl(id, dir)} download={`${parts.at(-1) ?? 'root'}.tar`}>
          Download this folder (tar)
        </a>
        {reading ? (
          <span className="muted">reading…</span>
        ) : (
          <span className="muted">
            {entries.length} {entries.length === 1 ? 'entry' : 'entries'}
          </span>
        )}
      </nav>
      <p className="muted">Drop files here to upload them into {dir}.</p>
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
            <tr key={e.name}>
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
              <td>{dateTime(e.mtime)}</td>
              <td>
                {e.type === 'file' ? (
                  <>
                    <button className="link" onClick={() => viewFile(e.name)}>
                      View
                    </button>
                    <button className="link" onClick={() => downloadFile(e.name)}>
                      Download
                    </button>
                  </>
                ) : (
                  <a href={engine.archiveUrl(id, join(dir, e.name))} download={`${e.name}.tar`}>
                    Download (tar)
                  </a>
                )}
                <button className="link danger" onClick={() => setDeleting(join(dir, e.name))}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {viewing && (
        <section className="file-view" aria-label={`Contents of ${viewing.path}`}>
          <header className="toolbar">
            <h2>{viewing.path}</h2>
            <span className="spacer" />
            <button onClick={() => setViewing(undefined)}>Close</button>
          </header>
          {viewing.binary ? (
            <p className="muted">Not a text file: download it instead.</p>
          ) : (
            <pre className="wrap">{viewing.text}</pre>
          )}
        </section>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${deleting}?`}
          action="Delete"
          onConfirm={() => void deletePath(deleting)}
          onClose={() => setDeleting(undefined)}
        >
          <p>
            {deleting} is deleted from the container for good (a folder with everything in it). This runs{' '}
            <code>rm</code> in the container, which must be running.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

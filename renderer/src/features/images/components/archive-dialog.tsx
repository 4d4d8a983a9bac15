// Load a `docker save` archive, or import a root filesystem tar as an image (repository, tag and an
// optional command), with the upload's progress and the engine's answer.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { engine } from '../../../api/engine-client';
import { errorText, parseJsonLines } from '../../../api/gateway';
import { Dialog } from '../../../app/ui/dialog';
import { toast } from '../../../app/ui/toasts';
import { bytes } from '../../../app/ui/format';
import { splitCommand } from '../../../app/ui/form-input';

interface Answer {
  stream?: string;
  status?: string;
  error?: string;
  errorDetail?: { message: string };
}

export function ArchiveDialog({
  mode,
  file: dropped,
  onClose,
}: {
  mode: 'load' | 'import';
  /** A file dropped on the screen: loaded at once. */
  file?: File;
  onClose: () => void;
}) {
  const [file, setFile] = useState<File | undefined>(dropped);
  const [repo, setRepo] = useState('');
  const [tag, setTag] = useState('latest');
  const [command, setCommand] = useState('');
  const [message, setMessage] = useState('');
  const [changes, setChanges] = useState('');
  const [sent, setSent] = useState<{ sent: number; total: number }>();
  const [running, setRunning] = useState(false);
  const [lines, setLines] = useState<string[]>([]);
  const [error, setError] = useState<string>();
  const abort = useRef<AbortController | undefined>(undefined);
  const started = useRef(false);
  const qc = useQueryClient();

  const verb = mode === 'load' ? 'Load' : 'Import';
  const send = async (f: File) => {
    abort.current = new AbortController();
    setRunning(true);
    setError(undefined);
    setLines([]);
    const onProgress = (s: number, total: number) => setSent({ sent: s, total });
    try {
      const cmd = splitCommand(command);
      const text =
        mode === 'load'
          ? await engine.load(f, onProgress, abort.current.signal)
          : await engine.importImage(
              f,
              {
                repo: repo.trim(),
                tag: tag.trim() || 'latest',
                message: message.trim(),
                changes: [
                  ...(cmd.length ? [`CMD ${JSON.stringify(cmd)}`] : []),
                  ...changes
                    .split('\n')
                    .map((l) => l.trim())
                    .filter(Boolean),
                ],
              },
              onProgress,
              abort.current.signal,
            );
      const answers = parseJsonLines<Answer>(text);
      const failed = answers.find((a) => a.error || a.errorDetail);
      const reason = failed && (failed.errorDetail?.message ?? failed.error);
      if (failed) setError(reason);
      const said = answers.map((a) => (a.stream ?? a.status ?? '').trim()).filter(Boolean);
      setLines(said);
      if (failed) toast('failed', `${verb} of ${f.name} failed: ${reason}`);
      else if (mode === 'load') toast('done', said.at(-1) ?? `${verb} of ${f.name} done`);
      else {
        // Done: the dialog goes, and the toast names the image (the engine answers a bare digest).
        toast('done', importedText(said.at(-1)));
        onClose();
      }
    } catch (err) {
      if ((err as Error).name !== 'AbortError') {
        setError(errorText(err));
        toast('failed', `${verb} of ${f.name} failed: ${errorText(err)}`);
      }
    } finally {
      setRunning(false);
      void qc.invalidateQueries({ queryKey: ['images'] });
    }
  };
  useEffect(() => {
    if (dropped && !started.current) {
      started.current = true;
      void send(dropped);
    }
    // Once, for the file the dialog was opened with.
  }, []);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (file) void send(file);
  };
  const close = () => (abort.current?.abort(), onClose());
  const importedText = (digest = '') => {
    const name = `${repo.trim()}:${tag.trim() || 'latest'}`;
    const id = digest.replace(/^sha256:/, '').slice(0, 12);
    return `Imported ${name}${id ? ` (${id})` : ''}${splitCommand(command).length ? '' : ': it has no command, give one when you run it'}`;
  };
  const title = mode === 'load' ? 'Load an image archive' : 'Import a root filesystem';
  return (
    <Dialog title={title} onClose={close}>
      <form onSubmit={submit} className="form">
        <label>
          {mode === 'load' ? 'Archive (from docker save)' : 'Root filesystem (a tar)'}{' '}
          <input
            type="file"
            required={!file}
            accept=".tar,.tar.gz,.tgz,application/x-tar"
            onChange={(e) => setFile(e.target.files?.[0])}
          />
        </label>
        {mode === 'load' ? (
          <p className="muted">Or drop the archive anywhere on the Images screen.</p>
        ) : (
          <>
            <label>
              Repository{' '}
              <input required value={repo} onChange={(e) => setRepo(e.target.value)} placeholder="myapp" />
            </label>
            <label>
              Tag <input value={tag} onChange={(e) => setTag(e.target.value)} />
            </label>
            <label>
              Command{' '}
              <input
                value={command}
                onChange={(e) => setCommand(e.target.value)}
                placeholder="(none: give one when you run it)"
              />
            </label>
            <label>
              Message{' '}
              <input
                value={message}
                onChange={(e) => setMessage(e.target.value)}
                placeholder="(shown in the image's history)"
              />
            </label>
            <label>
              Other changes{' '}
              <textarea
                rows={3}
                value={changes}
                onChange={(e) => setChanges(e.target.value)}
                placeholder={'One instruction a line, as in a Dockerfile:\nENV MODE=prod\nWORKDIR /app'}
              />
            </label>
          </>
        )}
        {sent ? (
          <div className="progress" aria-live="polite">
            <div className="layer">
              <code>{file?.name}</code>
              <progress aria-label="Sent" max={sent.total || 1} value={sent.sent} />
              <span>
                {bytes(sent.sent)} / {bytes(sent.total)}
                {running && sent.sent === sent.total ? ' — the engine is unpacking…' : ''}
              </span>
            </div>
            {lines.map((l, i) => (
              <div key={i} className="muted">
                {l}
              </div>
            ))}
            {error ? (
              <div className="error" role="alert">
                {error}
              </div>
            ) : null}
          </div>
        ) : null}
        <footer>
          <button type="button" onClick={close}>
            {running ? 'Cancel' : 'Close'}
          </button>
          <button type="submit" disabled={running || !file}>
            {mode === 'load' ? (running ? 'Loading…' : 'Load') : running ? 'Importing…' : 'Import'}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}

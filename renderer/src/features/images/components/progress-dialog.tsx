// Pull (image + tag) or push (a local name), with a progress bar per layer.
import { useRef, useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { engine } from '../../../api/engine-client';
import { errorText, jsonLines } from '../../../api/gateway';
import type { JsonMessage } from '../../../api/engine-types';
import { Dialog } from '../../../app/ui/dialog';
import { toast } from '../../../app/ui/toasts';
import { useDebounced } from '../../../app/ui/use-debounced';
import { useRegistryReferences, useRegistrySearch } from '../../registry/queries';
import './images.css';
import { fold, splitTag, type Progress } from '../../../api/pull-progress';
import { ProgressView } from '../../../app/ui/progress-view';

export function ProgressDialog({
  mode,
  name,
  onClose,
}: {
  mode: 'pull' | 'push';
  name?: string;
  onClose: () => void;
}) {
  const [image, setImage] = useState(name ?? '');
  const [progress, setProgress] = useState<Progress>();
  const [running, setRunning] = useState(false);
  const abort = useRef<AbortController | undefined>(undefined);
  const qc = useQueryClient();
  const known = useRegistryReferences();
  // Search as you type, through the engine, in the registry the name starts with.
  const found = useRegistrySearch(useDebounced(mode === 'pull' ? image : '', 200));
  const suggestions = [
    ...new Set([
      ...(known.data ?? []),
      ...(found.data ?? []).flatMap((r) => (known.data ?? []).filter((k) => k.startsWith(`${r.name}:`))),
      ...(found.data ?? []).map((r) => r.name),
    ]),
  ];

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const [repo, tag] = splitTag(image.trim());
    abort.current = new AbortController();
    setRunning(true);
    let p: Progress = { layers: [], messages: [] };
    setProgress(p);
    const what = `${repo}:${tag}`;
    try {
      const res = await (mode === 'pull' ? engine.pull : engine.push)(repo, tag, abort.current.signal);
      for await (const m of jsonLines<JsonMessage>(res)) setProgress((p = fold(p, m)));
      if (p.error) toast('failed', `${mode === 'pull' ? 'Pull' : 'Push'} of ${what} failed: ${p.error}`);
      else toast('done', `${mode === 'pull' ? 'Pulled' : 'Pushed'} ${what}`);
    } catch (err) {
      if ((err as Error).name !== 'AbortError') {
        setProgress({ ...p, error: errorText(err) });
        toast('failed', `${mode === 'pull' ? 'Pull' : 'Push'} of ${what} failed: ${errorText(err)}`);
      }
    } finally {
      setRunning(false);
      void qc.invalidateQueries({ queryKey: ['images'] });
    }
  };

  return (
    <Dialog
      title={mode === 'pull' ? 'Pull an image' : `Push ${name}`}
      onClose={() => (abort.current?.abort(), onClose())}
    >
      <form onSubmit={submit} className="form">
        <label>
          Image{' '}
          <input
            required
            autoFocus
            value={image}
            onChange={(e) => setImage(e.target.value)}
            placeholder="host:port/repository:tag"
            readOnly={mode === 'push'}
            list={mode === 'pull' ? 'registry-references' : undefined}
          />
        </label>
        {mode === 'pull' ? (
          <datalist id="registry-references" data-testid="pull-suggestions">
            {suggestions.map((r) => (
              <option key={r} value={r} />
            ))}
          </datalist>
        ) : null}
        {mode === 'push' ? (
          <p className="muted">The image name says where it goes: host:port/repository:tag (tag it first).</p>
        ) : null}
        {progress ? <ProgressView progress={progress} /> : null}
        <footer>
          <button type="button" onClick={() => (abort.current?.abort(), onClose())}>
            {running ? 'Cancel' : 'Close'}
          </button>
          <button type="submit" disabled={running}>
            {running ? `${mode === 'pull' ? 'Pulling' : 'Pushing'}…` : mode === 'pull' ? 'Pull' : 'Push'}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}

// The registry browser's dialogs: add a registry (basic or token auth; the password goes to the
// main process and never comes back), pull a tag into an engine, push an engine's image, copy an
// image to another registry. Transfers run main-side; each shows per-layer progress and ends in a
// toast.
import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { RegistryAuthKind, RegistrySummary } from '../../../../../daemon/api/desktop-types';
import { errorText, jsonLines } from '../../../api/gateway';
import type { JsonMessage } from '../../../api/engine-types';
import { EMBEDDED_ENGINE } from '../../../api/engine-target';
import { Dialog } from '../../../app/ui/dialog';
import { ErrorMessage } from '../../../app/ui/error-message';
import { toast } from '../../../app/ui/toasts';
import { EngineSelect } from '../../engines/components/engine-select';
import { transfers, useAddRegistry, useEngineImages, useRegistries } from '../queries';
import './registry.css';
import { fold, splitTag, type Progress } from '../../../api/pull-progress';
import { ProgressView } from '../../../app/ui/progress-view';

/** Runs one progress stream: its state, and start/cancel. Ends in a toast either way. */
function useTransfer(done: string, failed: string, after?: () => void) {
  const [progress, setProgress] = useState<Progress>();
  const [running, setRunning] = useState(false);
  const abort = useRef<AbortController | undefined>(undefined);
  const start = async (open: (signal: AbortSignal) => Promise<Response>) => {
    abort.current = new AbortController();
    setRunning(true);
    let p: Progress = { layers: [], messages: [] };
    setProgress(p);
    try {
      const res = await open(abort.current.signal);
      for await (const m of jsonLines<JsonMessage>(res)) setProgress((p = fold(p, m)));
      if (p.error) toast('failed', `${failed}: ${p.error}`);
      else toast('done', done);
    } catch (err) {
      if ((err as Error).name !== 'AbortError') {
        setProgress({ ...p, error: errorText(err) });
        toast('failed', `${failed}: ${errorText(err)}`);
      }
    } finally {
      setRunning(false);
      after?.();
    }
  };
  return { progress, running, start, cancel: () => abort.current?.abort() };
}

function TransferDialog({
  title,
  action,
  busy,
  transfer,
  onSubmit,
  onClose,
  children,
}: {
  title: string;
  action: string;
  /** The submit button's label while the transfer runs, e.g. "Pulling…". */
  busy: string;
  transfer: ReturnType<typeof useTransfer>;
  onSubmit: () => void;
  onClose: () => void;
  children: ReactNode;
}) {
  const close = () => (transfer.cancel(), onClose());
  return (
    <Dialog title={title} onClose={close}>
      <form
        className="form"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          onSubmit();
        }}
      >
        {children}
        {transfer.progress ? <ProgressView progress={transfer.progress} /> : null}
        <footer>
          <button type="button" onClick={close}>
            {transfer.running ? 'Cancel' : 'Close'}
          </button>
          <button type="submit" className="btn-primary" disabled={transfer.running}>
            {transfer.running ? busy : action}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}

/** A dialog about one tag or digest of a repository. */
interface ImageDialogProps {
  registry: RegistrySummary;
  repo: string;
  reference: string;
  onClose: () => void;
}

/** Pulls `repo:tag` of the registry into the engine chosen (the embedded svcd by default). */
export function PullDialog({ registry, repo, reference, onClose }: ImageDialogProps) {
  const [engineId, setEngineId] = useState(EMBEDDED_ENGINE);
  const qc = useQueryClient();
  const name = `${registry.host}/${repo}${reference.includes(':') ? '@' : ':'}${reference}`;
  const transfer = useTransfer(`Pulled ${name}`, `Pull of ${name} failed`, () =>
    qc.invalidateQueries({ queryKey: ['images'] }),
  );
  return (
    <TransferDialog
      title="Pull an image"
      action="Pull"
      busy="Pulling…"
      transfer={transfer}
      onClose={onClose}
      onSubmit={() =>
        void transfer.start((signal) =>
          transfers.pull(registry.id, { engine: engineId, repository: repo, tag: reference }, signal),
        )
      }
    >
      <label>
        Image
        <input value={name} readOnly />
      </label>
      <EngineSelect value={engineId} onChange={setEngineId} />
    </TransferDialog>
  );
}

/** Pushes an image of the engine chosen to the registry, as repository:tag. */
export function PushDialog({ registry, onClose }: { registry: RegistrySummary; onClose: () => void }) {
  const [engineId, setEngineId] = useState(EMBEDDED_ENGINE);
  const images = useEngineImages(engineId);
  const names = (images.data ?? []).flatMap((i) => (i.RepoTags ?? []).filter((t) => t !== '<none>:<none>'));
  const [image, setImage] = useState('');
  const [target, setTarget] = useState('');
  const qc = useQueryClient();
  const chosen = image || names[0] || '';
  // The image's own name without its registry host, as a starting point.
  const suggested = chosen.replace(/^[^/]*[.:][^/]*\//, '');
  const [repository, tag] = splitTag(target || suggested);
  const where = `${registry.host}/${repository}:${tag}`;
  const transfer = useTransfer(`Pushed ${where}`, `Push to ${where} failed`, () =>
    qc.invalidateQueries({ queryKey: ['registry'] }),
  );
  return (
    <TransferDialog
      title={`Push to ${registry.name}`}
      action="Push"
      busy="Pushing…"
      transfer={transfer}
      onClose={onClose}
      onSubmit={() =>
        void transfer.start((signal) =>
          transfers.push(registry.id, { engine: engineId, image: chosen, repository, tag }, signal),
        )
      }
    >
      <EngineSelect value={engineId} onChange={(id) => (setEngineId(id), setImage(''))} />
      <ErrorMessage error={images.error} context="Could not list the engine's images" />
      {images.isSuccess && names.length === 0 ? (
        <p className="muted">This engine has no tagged image to push: pull, load or tag one first.</p>
      ) : null}
      <label>
        Image
        <select value={chosen} onChange={(e) => setImage(e.target.value)} required>
          {names.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
      <label>
        As repository:tag
        <input value={target || suggested} onChange={(e) => setTarget(e.target.value)} required />
      </label>
      <p className="muted">
        Pushed as <code>{where}</code>
      </p>
    </TransferDialog>
  );
}

/** Copies the image to a registry (this one or another), blobs mounted or streamed main-side. */
export function CopyDialog({ registry, repo, reference, onClose }: ImageDialogProps) {
  const registries = useRegistries().data ?? [];
  const others = registries.filter((r) => r.id !== registry.id);
  const [to, setTo] = useState(others[0]?.id ?? registry.id);
  const [target, setTarget] = useState(`${repo}:${reference.includes(':') ? 'latest' : reference}`);
  const qc = useQueryClient();
  const [repository, tag] = splitTag(target);
  const dest = registries.find((r) => r.id === to);
  const where = `${dest?.host ?? ''}/${repository}:${tag}`;
  const transfer = useTransfer(`Copied to ${where}`, `Copy to ${where} failed`, () =>
    qc.invalidateQueries({ queryKey: ['registry'] }),
  );
  return (
    <TransferDialog
      title={`Copy ${repo}:${reference}`}
      action="Copy"
      busy="Copying…"
      transfer={transfer}
      onClose={onClose}
      onSubmit={() =>
        void transfer.start((signal) =>
          transfers.copy(
            {
              from: { registry: registry.id, repository: repo, reference },
              to: { registry: to, repository, tag },
            },
            signal,
          ),
        )
      }
    >
      <label>
        To registry
        <select value={to} onChange={(e) => setTo(e.target.value)}>
          {registries.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name} ({r.host})
            </option>
          ))}
        </select>
      </label>
      <label>
        As repository:tag
        <input value={target} onChange={(e) => setTarget(e.target.value)} required />
      </label>
    </TransferDialog>
  );
}

export function AddRegistryDialog({ onClose }: { onClose: () => void }) {
  const add = useAddRegistry();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [auth, setAuth] = useState<RegistryAuthKind>('none');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate({ name, url, auth, username, password }, { onSuccess: onClose });
  };
  return (
    <Dialog title="Add a registry" onClose={onClose}>
      <form className="form" onSubmit={submit} aria-label="Add a registry">
        <label>
          Name <input value={name} onChange={(e) => setName(e.target.value)} required autoFocus />
        </label>
        <label>
          URL{' '}
          <input
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            placeholder="https://registry.example:5000"
            required
          />
        </label>
        <fieldset className="auth-choice">
          <legend>Authentication</legend>
          {(
            [
              ['none', 'None'],
              ['basic', 'Basic (user and password)'],
              ['token', 'Bearer token (from the token server the registry names)'],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className="inline">
              <input type="radio" name="auth" checked={auth === value} onChange={() => setAuth(value)} />{' '}
              {label}
            </label>
          ))}
        </fieldset>
        {auth !== 'none' ? (
          <>
            <label>
              Username <input value={username} onChange={(e) => setUsername(e.target.value)} required />
            </label>
            <label>
              Password{' '}
              <input
                type="password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                autoComplete="off"
              />
            </label>
            <p className="muted">Kept by the app&apos;s main process; this page never reads it back.</p>
          </>
        ) : null}
        <ErrorMessage error={add.error} context="Could not add the registry" />
        <footer>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn-primary" disabled={add.isPending}>
            {add.isPending ? 'Checking…' : 'Add registry'}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}

// Settings → Engines: add an engine (a unix socket, tcp:// with TLS client certificate files, or
// ssh://user@host), test it, remove it. Certificate and key files are named by path: the app's
// main process reads them; this page never sees their contents.
import { useRef, useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { EngineSummary } from '../../../../../daemon/api/desktop-types';
import { ConfirmDialog } from '../../../app/ui/confirm-dialog';
import { ErrorMessage } from '../../../app/ui/error-message';
import { useIntentHandler } from '../../../app/state/intent';
import { rowKeys } from '../../../app/ui/row-keys';
import { useAddEngine, useEngineStatus, useRemoveEngine } from '../queries';
import { useEngines } from '../../../app/state/engines';

export function EngineSettings() {
  const engines = useEngines();
  const remove = useRemoveEngine();
  const qc = useQueryClient();
  const [removing, setRemoving] = useState<EngineSummary>();
  const find = (id?: string) => engines.data?.find((e) => e.id === id);
  // From the command palette.
  useIntentHandler('engine.remove', engines.isSuccess, (id) => setRemoving(find(id)));
  useIntentHandler('engine.test', engines.isSuccess, (id) =>
    qc.refetchQueries({ queryKey: ['desktop-engine-status', { id }] }),
  );
  return (
    <fieldset className="engine-settings">
      <legend>Engines</legend>
      <p className="hint">
        Besides the embedded engine, any Docker API endpoint: its unix socket (Docker Engine, Podman&apos;s
        podman.sock), tcp:// with TLS client certificates, or ssh://user@host (through your ssh client and the
        docker CLI on that host).
      </p>
      <ErrorMessage error={engines.error ?? remove.error} />
      {engines.data?.length ? (
        <table className="table" aria-label="Added engines">
          <thead>
            <tr>
              <th>Name</th>
              <th>Endpoint</th>
              <th>Status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {engines.data.map((e) => (
              <EngineRow key={e.id} engine={e} onRemove={() => setRemoving(e)} />
            ))}
          </tbody>
        </table>
      ) : null}
      <AddEngineForm />
      {removing ? (
        <ConfirmDialog
          title={`Remove engine ${removing.name}?`}
          action="Remove"
          onConfirm={() => remove.mutate(removing.id)}
          onClose={() => setRemoving(undefined)}
        >
          <p>
            The app forgets <code>{removing.endpoint}</code> and its certificate paths. The engine itself and
            its containers are not touched.
          </p>
        </ConfirmDialog>
      ) : null}
    </fieldset>
  );
}

function EngineRow({ engine, onRemove }: { engine: EngineSummary; onRemove: () => void }) {
  const status = useEngineStatus(engine.id);
  const s = status.data;
  return (
    <tr data-testid={`engine-${engine.name}`} data-row onKeyDown={rowKeys({ remove: onRemove })}>
      <td>{engine.name}</td>
      <td>
        {engine.endpoint}
        {engine.tls ? ' (TLS)' : ''}
      </td>
      <td>
        {status.isFetching
          ? 'checking…'
          : s?.up
            ? `up, ${s.version ?? '?'} (API ${s.apiVersion ?? '?'})`
            : null}
        {!status.isFetching && s && !s.up ? <span className="error">down: {s.reason}</span> : null}
        <ErrorMessage error={status.error} />
      </td>
      <td>
        <button onClick={() => void status.refetch()}>Test</button>{' '}
        <button className="danger" onClick={onRemove} aria-label={`Remove engine ${engine.name}`}>
          Remove
        </button>
      </td>
    </tr>
  );
}

function AddEngineForm() {
  const add = useAddEngine();
  const [name, setName] = useState('');
  const [endpoint, setEndpoint] = useState('');
  const [tls, setTls] = useState({ ca: '', cert: '', key: '' });
  const isTcp = endpoint.startsWith('tcp://');
  const nameInput = useRef<HTMLInputElement>(null);
  useIntentHandler('engine.add', true, () => nameInput.current?.focus());
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const files = isTcp && (tls.ca || tls.cert || tls.key) ? tls : undefined;
    add.mutate(
      { name, endpoint, tls: files },
      {
        onSuccess: () => {
          setName('');
          setEndpoint('');
          setTls({ ca: '', cert: '', key: '' });
        },
      },
    );
  };
  return (
    <form className="add-engine" onSubmit={submit} aria-label="Add an engine">
      <label>
        Name <input ref={nameInput} value={name} onChange={(e) => setName(e.target.value)} required />
      </label>
      <label>
        Endpoint{' '}
        <input
          value={endpoint}
          onChange={(e) => setEndpoint(e.target.value)}
          placeholder="unix:///run/docker.sock, tcp://host:2376, ssh://user@host"
          required
        />
      </label>
      {isTcp
        ? (['ca', 'cert', 'key'] as const).map((f) => (
            <label key={f}>
              TLS {f === 'ca' ? 'CA certificate' : f === 'cert' ? 'client certificate' : 'client key'} file{' '}
              <input
                value={tls[f]}
                onChange={(e) => setTls({ ...tls, [f]: e.target.value })}
                placeholder="/absolute/path.pem"
              />
            </label>
          ))
        : null}
      <button type="submit" disabled={add.isPending}>
        Add engine
      </button>
      <ErrorMessage error={add.error} context="Could not add the engine" />
    </form>
  );
}

// Run a container: image, name, command, env, ports, volumes, restart policy.
import { useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../app/error-message';
import { navigate } from '../../../app/router';
import { createBody, emptyRunForm, type RunForm } from '../create-body';
import { useRunContainer } from '../queries';
import { Dialog } from '../../../app/dialog';

export function RunDialog({ onClose }: { onClose: () => void }) {
  const [form, setForm] = useState(emptyRunForm);
  const [invalid, setInvalid] = useState<unknown>();
  const run = useRunContainer();
  const field = (k: keyof RunForm) => ({
    value: form[k] as string,
    onChange: (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    try {
      const body = createBody(form);
      setInvalid(undefined);
      run.mutate(
        { body, name: form.name.trim() || undefined },
        { onSuccess: (c) => (onClose(), navigate('containers', c.Id, 'summary')) },
      );
    } catch (err) {
      setInvalid(err);
    }
  };
  return (
    <Dialog title="Run a container" onClose={onClose}>
      <form onSubmit={submit} className="form">
        <label>
          Image <input required autoFocus placeholder="busybox:latest" {...field('image')} />
        </label>
        <label>
          Name <input placeholder="(generated)" {...field('name')} />
        </label>
        <label>
          Command <input placeholder="(image default)" {...field('command')} />
        </label>
        <label>
          Environment <textarea rows={2} placeholder="KEY=value, one per line" {...field('env')} />
        </label>
        <label>
          Ports <textarea rows={2} placeholder="8080:80/tcp, one per line" {...field('ports')} />
        </label>
        <label>
          Volumes{' '}
          <textarea rows={2} placeholder="myvolume:/data or /host/path:/data:ro" {...field('volumes')} />
        </label>
        <label>
          Restart policy
          <select {...field('restart')}>
            <option value="no">no</option>
            <option value="on-failure">on-failure</option>
            <option value="unless-stopped">unless-stopped</option>
            <option value="always">always</option>
          </select>
        </label>
        <label className="inline">
          <input
            type="checkbox"
            checked={form.tty}
            onChange={(e) => setForm({ ...form, tty: e.target.checked })}
          />{' '}
          Allocate a terminal (TTY)
        </label>
        <ErrorMessage error={invalid} context="Check the form" />
        <ErrorMessage error={run.error} context="The engine refused" />
        <footer>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" disabled={run.isPending}>
            {run.isPending ? 'Starting…' : 'Run'}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}

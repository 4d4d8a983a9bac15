// `docker volume create` as a dialog: name, driver, what the local driver mounts (a plain
// directory, a tmpfs of a given size, or a bind of a host folder), further options and labels.
import { useState, type FormEvent } from 'react';
import { Dialog } from '../../../app/ui/dialog';
import { FormFooter } from '../../../app/ui/form-problems';
import { toast } from '../../../app/ui/toasts';
import { useVolumeMutations } from '../queries';
import { emptyVolumeForm, volumeBody, type VolumeForm } from '../volume-form';
import { FormErrors } from '../../../app/ui/form-input';

export function CreateVolumeDialog({ onClose }: { onClose: () => void }) {
  const [form, setForm] = useState<VolumeForm>(emptyVolumeForm);
  const [problems, setProblems] = useState<string[]>([]);
  const { create } = useVolumeMutations();
  const change = (patch: Partial<VolumeForm>) => {
    setForm({ ...form, ...patch });
    if (create.error) create.reset();
  };
  const text = (k: Exclude<keyof VolumeForm, 'kind'>) => ({
    value: form[k],
    onChange: (e: { target: { value: string } }) => change({ [k]: e.target.value }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    try {
      const body = volumeBody(form);
      setProblems([]);
      create.mutate(body, {
        onSuccess: (v) => (onClose(), toast('done', `Created volume ${v?.Name ?? ''}`)),
      });
    } catch (err) {
      setProblems(err instanceof FormErrors ? err.problems : [String(err)]);
    }
  };
  return (
    <Dialog title="Create a volume" onClose={onClose}>
      <form onSubmit={submit} className="form" noValidate>
        <div className="row">
          <label>
            Name <input data-autofocus placeholder="(generated)" {...text('name')} />
          </label>
          <label>
            Driver <input placeholder="local" {...text('driver')} />
          </label>
        </div>
        <fieldset>
          <legend>What the local driver keeps it in</legend>
          {(
            [
              ['plain', 'A directory the engine manages'],
              ['tmpfs', 'Memory (tmpfs): gone when no container uses it'],
              ['bind', 'A folder of this machine'],
            ] as const
          ).map(([kind, label]) => (
            <label key={kind} className="inline">
              <input
                type="radio"
                name="volume-kind"
                checked={form.kind === kind}
                onChange={() => change({ kind })}
              />{' '}
              {label}
            </label>
          ))}
        </fieldset>
        {form.kind === 'tmpfs' ? (
          <label>
            Size <input placeholder="64m (default: half the memory)" {...text('size')} />
          </label>
        ) : null}
        {form.kind === 'bind' ? (
          <label>
            Host folder <input placeholder="/srv/data (must exist)" {...text('folder')} />
          </label>
        ) : null}
        <label>
          More driver options <textarea rows={2} placeholder="KEY=value, one per line" {...text('options')} />
        </label>
        <label>
          Labels <textarea rows={2} placeholder="KEY=value, one per line" {...text('labels')} />
        </label>
        <FormFooter problems={problems} error={create.error} pending={create.isPending} onCancel={onClose} />
      </form>
    </Dialog>
  );
}

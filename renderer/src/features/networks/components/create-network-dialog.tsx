// `docker network create` as a dialog: name, driver (overlay only on a swarm manager), the IPAM
// config (IPv6's subnet and gateway once IPv6 is ticked), the flags, labels and driver options.
// The engine's refusal (a subnet another network has, say) is shown as it says it, in the dialog.
import { useState, type FormEvent } from 'react';
import { Dialog } from '../../../app/ui/dialog';
import { FormFooter } from '../../../app/ui/form-problems';
import { emptyNetworkForm, networkBody, type NetworkForm } from '../network-form';
import { useNetworkMutations, useSwarmManager } from '../queries';
import { FormErrors } from '../../../app/ui/form-input';

export function CreateNetworkDialog({
  onClose,
  onCreated,
}: {
  onClose: () => void;
  onCreated: (name: string) => void;
}) {
  const [form, setForm] = useState<NetworkForm>(emptyNetworkForm);
  const [problems, setProblems] = useState<string[]>([]);
  const { create } = useNetworkMutations();
  const manager = useSwarmManager().data === true;
  const change = (patch: Partial<NetworkForm>) => {
    setForm({ ...form, ...patch });
    if (create.error) create.reset();
  };
  const text = (
    k: 'name' | 'subnet' | 'gateway' | 'ipRange' | 'subnet6' | 'gateway6' | 'labels' | 'options',
  ) => ({
    value: form[k],
    onChange: (e: { target: { value: string } }) => change({ [k]: e.target.value }),
  });
  const flag = (k: 'internal' | 'attachable' | 'ipv6') => ({
    type: 'checkbox',
    checked: form[k],
    onChange: (e: { target: { checked: boolean } }) => change({ [k]: e.target.checked }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    try {
      const body = networkBody(form);
      setProblems([]);
      create.mutate(body, { onSuccess: () => (onClose(), onCreated(body.Name!)) });
    } catch (err) {
      setProblems(err instanceof FormErrors ? err.problems : [String(err)]);
    }
  };
  return (
    <Dialog title="Create a network" onClose={onClose}>
      <form onSubmit={submit} className="form" noValidate>
        <div className="row">
          <label>
            Name <input data-autofocus placeholder="my-network" {...text('name')} />
          </label>
          <label>
            Driver
            <select
              value={form.driver}
              onChange={(e) => change({ driver: e.target.value as NetworkForm['driver'] })}
            >
              <option value="bridge">bridge</option>
              <option value="overlay" disabled={!manager}>
                overlay{manager ? '' : ' (needs a swarm manager)'}
              </option>
            </select>
          </label>
        </div>
        <div className="row">
          <label>
            Subnet <input placeholder="(chosen by the engine)" {...text('subnet')} />
          </label>
          <label>
            Gateway <input placeholder="(first address)" {...text('gateway')} />
          </label>
          <label>
            IP range <input placeholder="(the whole subnet)" {...text('ipRange')} />
          </label>
        </div>
        <label className="inline">
          <input {...flag('internal')} /> Internal (no route out of the network, no published ports)
        </label>
        <label className="inline">
          <input {...flag('attachable')} /> Attachable (containers may join it by hand)
        </label>
        <label className="inline">
          <input {...flag('ipv6')} /> IPv6
        </label>
        {form.ipv6 ? (
          <div className="row">
            <label>
              IPv6 subnet <input placeholder="fd00:1::/64" {...text('subnet6')} />
            </label>
            <label>
              IPv6 gateway <input placeholder="(first address)" {...text('gateway6')} />
            </label>
          </div>
        ) : null}
        <label>
          Labels <textarea rows={2} placeholder="KEY=value, one per line" {...text('labels')} />
        </label>
        <label>
          Driver options{' '}
          <textarea
            rows={2}
            placeholder="com.docker.network.driver.mtu=1400, one per line"
            {...text('options')}
          />
        </label>
        <FormFooter problems={problems} error={create.error} pending={create.isPending} onCancel={onClose} />
      </form>
    </Dialog>
  );
}

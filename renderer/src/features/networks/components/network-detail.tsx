// One network: its IPAM config, flags, options and labels; the containers on it with their
// addresses and aliases, each one disconnected by a button; a form that connects another
// container (with aliases and a fixed address); and its removal once nothing is on it.
import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link2, Trash2, Unlink } from 'lucide-react';
import { engine } from '../../../api/engine-client';
import { ConfirmDialog } from '../../../app/ui/confirm-dialog';
import { ErrorMessage } from '../../../app/ui/error-message';
import { containerName, plural, when } from '../../../app/ui/format';
import { navigate } from '../../../app/state/router';
import { toast } from '../../../app/ui/toasts';
import { Button } from '../../../app/ui/button';
import { Breadcrumb, Fields } from '../../../app/ui/detail';
import { useEngineUp } from '../../../app/state/use-desktop-state';
import { builtinNetworks, useNetworkMutations } from '../queries';
import './networks.css';
import { useContainers } from '../../../app/state/engine-lists';
import { aliasList } from '../../../app/ui/form-input';

const pairs = (o: Record<string, string> | null | undefined) =>
  Object.entries(o ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(', ') || '—';

export function NetworkDetail({ name }: { name: string }) {
  const up = useEngineUp();
  const network = useQuery({
    queryKey: ['networks', { name }],
    queryFn: () => engine.network(name),
    enabled: up,
  });
  const containers = useContainers(true);
  const { connect, disconnect, remove } = useNetworkMutations();
  const [target, setTarget] = useState('');
  const [aliases, setAliases] = useState('');
  const [address, setAddress] = useState('');
  const [removing, setRemoving] = useState(false);
  const n = network.data;
  const members = Object.entries(n?.Containers ?? {});
  const others = (containers.data ?? []).filter((c) => !n?.Containers?.[c.Id]);
  const aliasesOf = (id: string) =>
    containers.data?.find((c) => c.Id === id)?.NetworkSettings.Networks[name]?.Aliases ?? [];
  const builtin = builtinNetworks.includes(name);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const chosen = others.find((c) => c.Id === target);
    if (!chosen) return;
    connect.mutate(
      {
        network: name,
        body: {
          Container: target,
          EndpointConfig: {
            Aliases: aliasList(aliases),
            ...(address.trim() && { IPAMConfig: { IPv4Address: address.trim() } }),
          },
        },
      },
      {
        onSuccess: () => {
          toast('done', `Connected ${containerName(chosen.Names, chosen.Id)} to ${name}`);
          setTarget('');
          setAliases('');
          setAddress('');
        },
      },
    );
  };
  const fields: [string, string][] = n
    ? [
        ['Id', n.Id],
        ['Driver', `${n.Driver} (${n.Scope})`],
        ['Created', when(n.Created)],
        ['IPAM driver', n.IPAM?.Driver || 'default'],
        ['Subnet', (n.IPAM?.Config ?? []).map((c) => c.Subnet).join(', ') || '—'],
        ['Gateway', (n.IPAM?.Config ?? []).map((c) => c.Gateway).join(', ') || '—'],
        [
          'IP range',
          (n.IPAM?.Config ?? [])
            .map((c) => c.IPRange)
            .filter(Boolean)
            .join(', ') || '—',
        ],
        ['Internal', n.Internal ? 'yes: no route out, no published ports' : 'no'],
        ['Attachable', n.Attachable ? 'yes' : 'no'],
        ['IPv6', n.EnableIPv6 ? 'yes' : 'no'],
        ['Options', pairs(n.Options)],
        ['Labels', pairs(n.Labels)],
      ]
    : [];
  return (
    <section className="screen">
      <header className="toolbar">
        <Breadcrumb href="#/networks" label="Networks" title={name} />
        <span className="spacer" />
        {builtin ? null : (
          <Button
            icon={Trash2}
            variant="danger"
            label="Remove network…"
            disabled={!n || members.length > 0}
            title={members.length ? `Disconnect its ${plural(members.length, 'container')} first` : undefined}
            onClick={() => setRemoving(true)}
          />
        )}
      </header>
      <ErrorMessage error={network.error} context={`Could not inspect network ${name}`} />
      <ErrorMessage error={connect.error ?? disconnect.error ?? remove.error} context="The engine refused" />
      <h2>Containers</h2>
      {members.length ? (
        <table className="table" aria-label={`Containers on ${name}`}>
          <thead>
            <tr>
              <th>Container</th>
              <th>IPv4 address</th>
              <th>MAC address</th>
              <th>Aliases</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {members.map(([id, m]) => (
              <tr key={id} data-container={m.Name}>
                <td>
                  <a href={`#/containers/${id}/summary`}>{m.Name}</a>
                </td>
                <td>
                  <code>{m.IPv4Address || '—'}</code>
                </td>
                <td>
                  <code>{m.MacAddress || '—'}</code>
                </td>
                <td>{aliasesOf(id).join(', ') || '—'}</td>
                <td>
                  {builtin && name !== 'bridge' ? null : (
                    <Button
                      iconOnly
                      icon={Unlink}
                      label={`Disconnect ${m.Name} from ${name}`}
                      onClick={() =>
                        disconnect.mutate(
                          { network: name, container: id },
                          { onSuccess: () => toast('done', `Disconnected ${m.Name} from ${name}`) },
                        )
                      }
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">No container is on this network.</p>
      )}
      {builtin && name !== 'bridge' ? null : (
        <form className="connect-form" onSubmit={submit} aria-label={`Connect a container to ${name}`}>
          <label>
            Container
            <select value={target} onChange={(e) => setTarget(e.target.value)}>
              <option value="">(choose)</option>
              {others.map((c) => (
                <option key={c.Id} value={c.Id}>
                  {containerName(c.Names, c.Id)}
                </option>
              ))}
            </select>
          </label>
          <label>
            Aliases{' '}
            <input placeholder="db, cache" value={aliases} onChange={(e) => setAliases(e.target.value)} />
          </label>
          <label>
            IPv4 address{' '}
            <input placeholder="(assigned)" value={address} onChange={(e) => setAddress(e.target.value)} />
          </label>
          <Button type="submit" icon={Link2} label="Connect" disabled={!target || connect.isPending} />
        </form>
      )}
      <h2>Settings</h2>
      {n ? <Fields fields={fields} raw={n} /> : null}
      {removing && (
        <ConfirmDialog
          title={`Remove network ${name}?`}
          action="Remove"
          onConfirm={() =>
            remove.mutate(name, {
              onSuccess: () => (toast('done', `Removed network ${name}`), navigate('networks')),
            })
          }
          onClose={() => setRemoving(false)}
        >
          <p>Network {name} is removed; no container is on it.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

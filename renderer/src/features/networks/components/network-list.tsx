// Networks: a table (or the topology) of the engine's networks with their subnets and how many
// containers each has; create, remove and prune, each destructive action confirmed naming what goes.
import { useState } from 'react';
import { Eraser, Network, Plus, Trash2 } from 'lucide-react';
import { ConfirmDialog } from '../../../app/ui/confirm-dialog';
import { ErrorMessage } from '../../../app/ui/error-message';
import { plural } from '../../../app/ui/format';
import { navigate } from '../../../app/state/router';
import { Segmented } from '../../../app/ui/segmented';
import { toast } from '../../../app/ui/toasts';
import { Button } from '../../../app/ui/button';
import { EmptyState } from '../../../app/ui/empty-state';
import { EngineDown } from '../../../app/ui/engine-down';
import { useIntentHandler } from '../../../app/state/intent';
import { rowKeys } from '../../../app/ui/row-keys';
import { useEngineUp } from '../../../app/state/use-desktop-state';
import { builtinNetworks, useNetworkMutations } from '../queries';
import { CreateNetworkDialog } from './create-network-dialog';
import { Topology } from './topology';
import './networks.css';
import { useContainers, useNetworks } from '../../../app/state/engine-lists';

type Pending = { kind: 'remove'; name: string } | { kind: 'prune'; names: string[] };

export function NetworkList() {
  const networks = useNetworks();
  const containers = useContainers(true);
  const up = useEngineUp();
  const { remove, prune } = useNetworkMutations();
  const [view, setView] = useState<'table' | 'topology'>('table');
  const [creating, setCreating] = useState(false);
  const [pending, setPending] = useState<Pending>();
  const list = networks.data ?? [];
  const users = (n: (typeof list)[number]) => Object.keys(n.Containers ?? {}).length;
  const unused = list.filter((n) => !builtinNetworks.includes(n.Name) && users(n) === 0).map((n) => n.Name);
  useIntentHandler('network.create', true, () => setCreating(true));
  useIntentHandler('network.prune', networks.isSuccess, () =>
    unused.length
      ? setPending({ kind: 'prune', names: unused })
      : toast('done', 'No unused networks to prune'),
  );
  useIntentHandler('network.remove', networks.isSuccess, (n) => n && setPending({ kind: 'remove', name: n }));
  const confirm = () => {
    if (pending?.kind === 'remove')
      remove.mutate(pending.name, { onSuccess: () => toast('done', `Removed network ${pending.name}`) });
    if (pending?.kind === 'prune')
      prune.mutate(undefined, {
        onSuccess: (r) => toast('done', `Pruned ${plural(r?.NetworksDeleted?.length ?? 0, 'network')}`),
      });
  };
  return (
    <section className="screen">
      <header className="toolbar">
        <h1>Networks</h1>
        <Segmented
          label="View"
          value={view}
          onChange={setView}
          choices={[
            { value: 'table', label: 'List' },
            { value: 'topology', label: 'Topology' },
          ]}
        />
        <span className="spacer" />
        <Button
          icon={Plus}
          variant="primary"
          label="New network…"
          disabled={!up}
          onClick={() => setCreating(true)}
        />
        <Button
          icon={Eraser}
          label="Prune unused"
          disabled={unused.length === 0}
          onClick={() => setPending({ kind: 'prune', names: unused })}
        />
      </header>
      {up ? null : <EngineDown />}
      <ErrorMessage error={networks.error} context="Could not list networks" />
      <ErrorMessage error={remove.error ?? prune.error} context="The engine refused" />
      {networks.isSuccess && list.length === 0 ? (
        <EmptyState icon={Network} title="No networks" testId="networks-empty">
          <p>This engine lists no networks.</p>
        </EmptyState>
      ) : null}
      {view === 'topology' ? (
        <Topology networks={list} containers={containers.data ?? []} />
      ) : list.length ? (
        <table className="table" aria-label="Networks">
          <thead>
            <tr>
              <th>Name</th>
              <th>Driver</th>
              <th>Subnet</th>
              <th>Gateway</th>
              <th>Containers</th>
              <th>Flags</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.map((n) => {
              const builtin = builtinNetworks.includes(n.Name);
              const count = users(n);
              const ipam = n.IPAM?.Config ?? [];
              return (
                <tr
                  key={n.Id}
                  data-network={n.Name}
                  data-row
                  onKeyDown={rowKeys({
                    open: () => navigate('networks', n.Name),
                    remove: builtin || count ? undefined : () => setPending({ kind: 'remove', name: n.Name }),
                  })}
                >
                  <td>
                    <a href={`#/networks/${encodeURIComponent(n.Name)}`}>{n.Name}</a>
                  </td>
                  <td>{n.Driver}</td>
                  <td>{ipam.map((c) => c.Subnet).join(', ') || '—'}</td>
                  <td>{ipam.map((c) => c.Gateway).join(', ') || '—'}</td>
                  <td>{count || <span className="muted">none</span>}</td>
                  <td>
                    {[n.Internal && 'internal', n.Attachable && 'attachable', n.EnableIPv6 && 'IPv6']
                      .filter(Boolean)
                      .join(', ')}
                  </td>
                  <td>
                    {builtin ? null : (
                      <Button
                        iconOnly
                        icon={Trash2}
                        variant="danger"
                        label={
                          count
                            ? `Network ${n.Name} has ${plural(count, 'container')}: disconnect them to remove it`
                            : `Remove network ${n.Name}`
                        }
                        disabled={count > 0}
                        onClick={() => setPending({ kind: 'remove', name: n.Name })}
                      />
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      {creating ? (
        <CreateNetworkDialog
          onClose={() => setCreating(false)}
          onCreated={(name) => toast('done', `Created network ${name}`)}
        />
      ) : null}
      {pending && (
        <ConfirmDialog
          title={pending.kind === 'remove' ? `Remove network ${pending.name}?` : 'Prune unused networks?'}
          action={pending.kind === 'remove' ? 'Remove' : 'Prune'}
          onConfirm={confirm}
          onClose={() => setPending(undefined)}
        >
          <p>
            {pending.kind === 'remove'
              ? `Network ${pending.name} is removed; no container is on it.`
              : `${plural(pending.names.length, 'network')} no container is on will be removed: ${pending.names.join(', ')}.`}
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

// Disk usage: what containers, images, volumes and the build cache take, what a prune would free,
// a prune per kind and "Clean up everything", each confirmed with the exact objects named.
import { useState } from 'react';
import { Eraser, Trash2 } from 'lucide-react';
import { Button } from '../../../app/ui/button';
import { EngineDown } from '../../../app/ui/engine-down';
import { useIntentHandler } from '../../../app/state/intent';
import { toast } from '../../../app/ui/toasts';
import { useEngineUp } from '../../../app/state/use-desktop-state';
import { ConfirmDialog } from '../../../app/ui/confirm-dialog';
import { ErrorMessage } from '../../../app/ui/error-message';
import { bytes, plural } from '../../../app/ui/format';
import { diskUsageGaps, sections, useDiskUsage, usePrune, type Kind, type Section } from '../queries';
import { useEngineProduct } from '../../../app/state/engine-product';

export const PRUNE_LABELS: Record<Kind, { title: string; action: string; noun: string }> = {
  containers: { title: 'Containers', action: 'Remove stopped containers', noun: 'stopped container' },
  images: { title: 'Images', action: 'Remove unused images', noun: 'unused image' },
  volumes: { title: 'Volumes', action: 'Remove unused volumes', noun: 'unused volume' },
  'build cache': { title: 'Build cache', action: 'Clear the build cache', noun: 'build cache' },
};

export function DiskUsage() {
  const df = useDiskUsage();
  const product = useEngineProduct();
  const gaps = diskUsageGaps(product);
  const prune = usePrune(product);
  const up = useEngineUp();
  const [pending, setPending] = useState<Section[] | undefined>();
  /** The build cache is offered always (df does not count its intermediate images apart), unless the engine has none. */
  const worthPruning = (s: Section) =>
    !gaps.unprunable.includes(s.kind) && (s.kind === 'build cache' || s.removable.length > 0);
  const list = df.data ? sections(df.data) : [];
  const all = df.data ? sections(df.data, true).filter(worthPruning) : [];
  useIntentHandler('disk.cleanup', df.isSuccess, () =>
    all.length ? setPending(all) : toast('done', 'Nothing to clean up'),
  );
  useIntentHandler('disk.prune', df.isSuccess, (kind) => {
    const s = list.find((x) => x.kind === kind);
    if (s && worthPruning(s)) setPending([s]);
    else toast('done', `Nothing to remove: no ${kind ? PRUNE_LABELS[kind as Kind].noun : 'object'}`);
  });
  return (
    <section className="screen disk-usage">
      <header className="toolbar">
        <h1>Disk usage</h1>
        <span className="spacer" />
        <Button
          icon={Trash2}
          variant="danger"
          label="Clean up everything"
          disabled={all.length === 0 || prune.isPending}
          onClick={() => setPending(all)}
        />
      </header>
      {up ? null : <EngineDown />}
      <ErrorMessage error={df.error} context="Could not read the disk usage" />
      <ErrorMessage error={prune.error} />
      {gaps.notes.map((note) => (
        <p key={note} className="hint" data-testid="disk-usage-lacks">
          {note}
        </p>
      ))}
      {prune.data && (
        <p className="hint">
          Removed {prune.data.kinds.join(', ')}: {bytes(prune.data.reclaimed)} reclaimed
        </p>
      )}
      <table className="table" data-testid="disk-usage">
        <thead>
          <tr>
            <th>Kind</th>
            <th>Total</th>
            <th>In use</th>
            <th>Size</th>
            <th>Reclaimable</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {list.map((s) => (
            <tr key={s.kind} data-kind={s.kind}>
              <td>{PRUNE_LABELS[s.kind].title}</td>
              <td>{s.total}</td>
              <td>{s.active}</td>
              <td>{bytes(s.size)}</td>
              <td>{bytes(s.reclaimable)}</td>
              <td>
                <Button
                  icon={Eraser}
                  label={PRUNE_LABELS[s.kind].action}
                  disabled={!worthPruning(s) || prune.isPending}
                  onClick={() => setPending([s])}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {pending && (
        <ConfirmDialog
          title={pending.length > 1 ? 'Clean up everything?' : `${PRUNE_LABELS[pending[0].kind].action}?`}
          action={pending.length > 1 ? 'Clean up' : 'Remove'}
          onConfirm={() => prune.mutate(pending)}
          onClose={() => setPending(undefined)}
        >
          <p>About {bytes(pending.reduce((n, s) => n + s.reclaimable, 0))} will be freed. This removes:</p>
          <ul data-testid="will-remove">
            {pending.map((s) => (
              <li key={s.kind}>
                {s.kind === 'build cache'
                  ? s.removable[0]
                  : `${plural(s.removable.length, PRUNE_LABELS[s.kind].noun)}: ${s.removable.join(', ')}`}
              </li>
            ))}
          </ul>
        </ConfirmDialog>
      )}
    </section>
  );
}

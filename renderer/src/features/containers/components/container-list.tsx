// The containers screen: live list (events-driven), search and filters, multi-select with bulk
// actions, per-row actions, and the run dialog.
import { useCallback, useMemo, useState } from 'react';
import type { ContainerSummary } from '../../../api/engine-types';
import { ConfirmDialog } from '../../../app/ui/confirm-dialog';
import { ErrorMessage } from '../../../app/ui/error-message';
import { containerName, shortId } from '../../../app/ui/format';
import { useEngineUp } from '../../../app/state/use-desktop-state';
import { VirtualList } from '../../../app/ui/virtual-list';
import { useBulkAction } from '../queries';
import { useContainersUi, usePending } from '../store';
import { useStatsPolling } from '../stats-feed';
import { RunDialog } from './run-dialog';
import { ContainerRow } from './container-row';
import { SearchBox } from '../../../app/ui/search-box';
import { Boxes, FileCode, Play, RotateCw, Square, Trash2 } from 'lucide-react';
import { Button } from '../../../app/ui/button';
import { EmptyState } from '../../../app/ui/empty-state';
import { EngineDown } from '../../../app/ui/engine-down';
import { useIntentHandler } from '../../../app/state/intent';
import { ComposeDialog } from '../../compose/components/compose-dialog';
import { ProjectRow } from '../../compose/components/project-row';
import { groupedRows } from '../../compose/projects';
import { useFoldedProjects } from '../../compose/store';
import './containers.css';
import { useContainers } from '../../../app/state/engine-lists';

const ROW = 44;

/** What the search box looks in, by container: built once per answer, not per keystroke. */
const haystacks = new WeakMap<ContainerSummary, string>();

function haystack(c: ContainerSummary): string {
  let hay = haystacks.get(c);
  if (hay === undefined) {
    hay = `${c.Names.join(' ')} ${c.Image} ${c.Id} ${c.Command} ${c.Status}`.toLowerCase();
    haystacks.set(c, hay);
  }
  return hay;
}

function matches(c: ContainerSummary, search: string, label: string): boolean {
  if (search && !haystack(c).includes(search.toLowerCase())) return false;
  if (!label) return true;
  const [k, v] = label.split('=');
  return c.Labels?.[k] !== undefined && (v === undefined || c.Labels[k] === v);
}

export function ContainerList() {
  const ui = useContainersUi();
  const up = useEngineUp();
  const list = useContainers(ui.showAll);
  const bulk = useBulkAction();
  const rows = useMemo(
    () => (list.data ?? []).filter((c) => matches(c, ui.search, ui.label)),
    [list.data, ui.search, ui.label],
  );
  // Compose projects are one row each, their containers under it unless folded.
  const { folded, toggle: toggleProject } = useFoldedProjects();
  const items = useMemo(() => groupedRows(rows, folded), [rows, folded]);
  // One shared stats timer for the running containers in view, not a stream per row.
  useStatsPolling();
  const selected = [...ui.selected].filter((id) => rows.some((r) => r.Id === id));
  const act = (action: 'start' | 'stop' | 'restart' | 'remove', ids = selected) =>
    bulk.mutate({ ids, action });
  const failures = bulk.data?.filter((r) => r.error) ?? [];
  const pending = usePending((p) => p.pending);
  const [removing, setRemoving] = useState<string[]>();
  // Stable, so a row renders again only when its own container changes.
  const { mutate } = bulk;
  const actOne = useCallback(
    (action: 'start' | 'stop' | 'restart', id: string) => mutate({ ids: [id], action }),
    [mutate],
  );
  const removeOne = useCallback((id: string) => setRemoving([id]), []);
  const [composeOpen, setComposeOpen] = useState(false);
  // From the command palette: one container, or the selection (ids joined by commas).
  useIntentHandler('container.remove', list.isSuccess, (ids) => ids && setRemoving(ids.split(',')));
  const nameOf = (id: string) => {
    const c = list.data?.find((r) => r.Id === id);
    return c ? containerName(c.Names, c.Id) : shortId(id);
  };

  return (
    <section className="screen" aria-labelledby="containers-title">
      <header className="toolbar">
        <h1 id="containers-title">Containers</h1>
        <SearchBox
          label="Search containers"
          placeholder="Search name, image, id…"
          value={ui.search}
          onChange={ui.setSearch}
        />
        <input
          placeholder="label=value"
          aria-label="Filter by label"
          value={ui.label}
          onChange={(e) => ui.setLabel(e.target.value)}
        />
        <label>
          <input type="checkbox" checked={!ui.showAll} onChange={(e) => ui.setShowAll(!e.target.checked)} />{' '}
          Running only
        </label>
        <span className="spacer" />
        <Button icon={FileCode} label="Compose…" onClick={() => setComposeOpen(true)} disabled={!up} />
        <Button
          icon={Play}
          variant="primary"
          label="Run container…"
          onClick={() => ui.setRunOpen(true)}
          disabled={!up}
        />
      </header>
      <div className="bulkbar" role="group" aria-label="Bulk actions">
        <span>{selected.length} selected</span>
        <Button icon={Play} label="Start" disabled={!selected.length} onClick={() => act('start')} />
        <Button icon={Square} label="Stop" disabled={!selected.length} onClick={() => act('stop')} />
        <Button icon={RotateCw} label="Restart" disabled={!selected.length} onClick={() => act('restart')} />
        <Button
          icon={Trash2}
          variant="danger"
          label="Remove"
          disabled={!selected.length}
          onClick={() => setRemoving(selected)}
        />
      </div>
      {!up ? <EngineDown /> : null}
      {list.isLoading ? <p className="muted">Loading containers…</p> : null}
      <ErrorMessage error={list.error} context="Could not list containers" />
      {failures.map((f) => (
        <ErrorMessage key={f.id} error={f.error} context={shortId(f.id)} />
      ))}
      <div className="table-head containers-grid" role="row">
        <input
          type="checkbox"
          aria-label="Select all"
          checked={rows.length > 0 && selected.length === rows.length}
          onChange={(e) => ui.selectOnly(e.target.checked ? rows.map((r) => r.Id) : [])}
        />
        <span>Name</span>
        <span>State</span>
        <span>Image</span>
        <span className="col-wide">Command</span>
        <span>Ports</span>
        <span className="col-mid">Created</span>
        <span>Status</span>
        <span>CPU · RAM</span>
        <span>Actions</span>
      </div>
      {list.isSuccess && rows.length === 0 ? (
        list.data.length ? (
          <p className="muted" data-testid="containers-empty">
            No container matches the filters.
          </p>
        ) : (
          <EmptyState
            icon={Boxes}
            title="No containers yet"
            testId="containers-empty"
            actions={
              <Button
                icon={Play}
                variant="primary"
                label="Run a container…"
                onClick={() => ui.setRunOpen(true)}
              />
            }
          >
            <p>Run one from an image; it shows up here with its logs, terminal, stats and files.</p>
          </EmptyState>
        )
      ) : (
        <VirtualList
          label="Containers"
          count={items.length}
          rowHeight={ROW}
          renderRow={(i) => {
            const item = items[i];
            if (item.kind === 'project')
              return (
                <ProjectRow
                  project={item.project}
                  folded={folded.has(item.project.name)}
                  onToggle={() => toggleProject(item.project.name)}
                />
              );
            const c = item.c;
            return (
              <ContainerRow
                c={c}
                project={item.project}
                busy={pending.get(c.Id)}
                selected={ui.selected.has(c.Id)}
                fetchedAt={list.dataUpdatedAt}
                onAction={actOne}
                onRemove={removeOne}
                onToggle={ui.toggle}
              />
            );
          }}
        />
      )}
      {composeOpen ? <ComposeDialog onClose={() => setComposeOpen(false)} /> : null}
      {ui.runOpen ? <RunDialog onClose={() => ui.setRunOpen(false)} /> : null}
      {removing ? (
        <ConfirmDialog
          title={
            removing.length === 1 ? `Remove ${nameOf(removing[0])}?` : `Remove ${removing.length} containers?`
          }
          action="Remove"
          onConfirm={() => act('remove', removing)}
          onClose={() => setRemoving(undefined)}
        >
          <p>
            {removing.map(nameOf).join(', ')} will be stopped if running, then removed with{' '}
            {removing.length === 1 ? 'its' : 'their'} file system. Named volumes stay.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

// The containers screen: live list (events-driven), search and filters, multi-select with bulk
// actions, per-row actions, and the run dialog.
import { useMemo, useState } from 'react';
import type { ContainerSummary } from '../../../api/engine-types';
import { ConfirmDialog } from '../../../app/confirm-dialog';
import { ErrorMessage } from '../../../app/error-message';
import { ago, containerName, shortId, statusAt } from '../../../app/format';
import { useNow } from '../../../app/use-now';
import { navigate } from '../../../app/router';
import { useEngineUp } from '../../../app/use-desktop-state';
import { VirtualList } from '../../../app/virtual-list';
import { useBulkAction, useContainers } from '../queries';
import { useContainersUi, usePending } from '../store';
import { useStatsPolling } from '../stats-feed';
import { RunDialog } from './run-dialog';
import { UsageCell } from './usage-cell';
import { SearchBox } from '../../../app/search-box';
import { Boxes, FileCode, Play, RotateCw, ScrollText, Square, SquareTerminal, Trash2 } from 'lucide-react';
import { Button } from '../../../app/ui/button';
import { EmptyState } from '../../../app/ui/empty-state';
import { EngineDown } from '../../../app/ui/engine-down';
import { useIntentHandler } from '../../../app/ui/intent';
import { rowKeys } from '../../../app/ui/row-keys';
import { PortLinks } from '../../../app/ui/port-links';
import { ComposeDialog } from '../../compose/components/compose-dialog';
import { ProjectRow } from '../../compose/components/project-row';
import { groupedRows, serviceLabel } from '../../compose/projects';
import { useFoldedProjects } from '../../compose/store';

const ROW = 44;

function matches(c: ContainerSummary, search: string, label: string): boolean {
  const hay = `${c.Names.join(' ')} ${c.Image} ${c.Id} ${c.Command} ${c.Status}`.toLowerCase();
  if (search && !hay.includes(search.toLowerCase())) return false;
  if (!label) return true;
  const [k, v] = label.split('=');
  return c.Labels?.[k] !== undefined && (v === undefined || c.Labels[k] === v);
}

function Ports({ c }: { c: ContainerSummary }) {
  return <PortLinks ports={c.Ports} className="ports" />;
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
  // One shared stats timer for every running container listed, not a stream per row.
  useStatsPolling(useMemo(() => rows.filter((c) => c.State === 'running').map((c) => c.Id), [rows]));
  const selected = [...ui.selected].filter((id) => rows.some((r) => r.Id === id));
  const act = (action: 'start' | 'stop' | 'restart' | 'remove', ids = selected) =>
    bulk.mutate({ ids, action });
  const failures = bulk.data?.filter((r) => r.error) ?? [];
  const pending = usePending((p) => p.pending);
  const now = useNow();
  const [removing, setRemoving] = useState<string[]>();
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
            const service = item.project ? serviceLabel(c) : undefined;
            const running = c.State === 'running';
            const busy = pending.get(c.Id);
            const clean = c.State === 'exited' && /^Exited \(0\)/.test(c.Status);
            // Icon buttons named with the container: a screen reader hears which one they act on.
            const cname = containerName(c.Names, c.Id);
            return (
              <div
                className={`containers-grid row${item.project ? ' in-project' : ''}`}
                data-testid="container-row"
                data-row
                onKeyDown={rowKeys({
                  open: () => navigate('containers', c.Id, 'summary'),
                  remove: busy ? undefined : () => setRemoving([c.Id]),
                })}
              >
                <input
                  type="checkbox"
                  aria-label={`Select ${cname}`}
                  checked={ui.selected.has(c.Id)}
                  onChange={() => ui.toggle(c.Id)}
                />
                {/* In a project the service says which one it is; the full name is the tooltip. */}
                <a href={`#/containers/${c.Id}/summary`} className="name ellipsis" title={cname}>
                  {service ?? cname}
                </a>
                <span
                  className={busy ? 'badge state-busy' : `badge state-${c.State}${clean ? ' exit-ok' : ''}`}
                >
                  {busy ?? c.State}
                </span>
                <span className="ellipsis" title={c.Image} data-testid="container-image">
                  {/* The engine gives the image ID once the name no longer names the image. */}
                  {c.Image.startsWith('sha256:') ? shortId(c.Image) : c.Image}
                </span>
                <code className="ellipsis col-wide" title={c.Command}>
                  {c.Command}
                </code>
                <Ports c={c} />
                <span className="col-mid">{ago(c.Created, now)}</span>
                <span className="ellipsis">{statusAt(c.Status, list.dataUpdatedAt, now)}</span>
                <UsageCell id={c.Id} running={running} />
                <span className="actions">
                  <Button
                    iconOnly
                    icon={running ? Square : Play}
                    label={`${running ? 'Stop' : 'Start'} ${cname}`}
                    disabled={!!busy}
                    onClick={() => act(running ? 'stop' : 'start', [c.Id])}
                  />
                  <Button
                    iconOnly
                    icon={RotateCw}
                    label={`Restart ${cname}`}
                    disabled={!!busy}
                    onClick={() => act('restart', [c.Id])}
                  />
                  <Button
                    iconOnly
                    icon={ScrollText}
                    label={`Logs of ${cname}`}
                    onClick={() => navigate('containers', c.Id, 'logs')}
                  />
                  <Button
                    iconOnly
                    icon={SquareTerminal}
                    label={`Terminal in ${cname}`}
                    disabled={!running || !!busy}
                    onClick={() => navigate('containers', c.Id, 'terminal')}
                  />
                  <Button
                    iconOnly
                    icon={Trash2}
                    variant="danger"
                    label={`Remove ${cname}`}
                    disabled={!!busy}
                    onClick={() => setRemoving([c.Id])}
                  />
                </span>
              </div>
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

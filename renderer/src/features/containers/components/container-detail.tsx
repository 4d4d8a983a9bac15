// One container: Summary, Logs, Terminal, Stats, Files, as tabs in the route.
import { Suspense, useState } from 'react';
import { ApiError } from '../../../api/gateway';
import { ConfirmDialog } from '../../../app/ui/confirm-dialog';
import { ErrorMessage } from '../../../app/ui/error-message';
import { fixableText, unpublishedPort } from '../../../api/fixable-errors';
import { containerName } from '../../../app/ui/format';
import { navigate } from '../../../app/state/router';
import { useBulkAction, useContainer } from '../queries';
import { useStatsStream } from '../stats-feed';
import { usePending } from '../store';
import { LogsTab } from './logs-tab';
import { StatsTab } from './stats-tab';
import { SummaryTab } from './summary-tab';
import { Play, RotateCw, Square, Trash2 } from 'lucide-react';
import { Button } from '../../../app/ui/button';
import { Breadcrumb, DetailTabs } from '../../../app/ui/detail';
import { FileBrowser } from '../../../app/ui/file-browser';
import { lazyChunk } from '../../../app/ui/lazy-chunk';
import './containers.css';

// xterm.js is a third of the bundle: it loads when a terminal is first opened.
const TerminalView = lazyChunk(() => import('../../../terminals/terminal-view').then((m) => m.TerminalView));

const TABS = ['summary', 'logs', 'terminal', 'stats', 'files'] as const;

export function ContainerDetail({ id, tab }: { id: string; tab: string }) {
  const c = useContainer(id);
  const bulk = useBulkAction();
  const current = (TABS as readonly string[]).includes(tab) ? tab : 'summary';
  const running = c.data?.State.Running ?? false;
  const tty = c.data?.Config.Tty ?? false;
  const busy = usePending((p) => p.pending.get(id));
  const [confirming, setConfirming] = useState(false);
  useStatsStream(id, running);
  const name = c.data ? containerName([c.data.Name], id) : id;
  if (c.error instanceof ApiError && c.error.status === 404) {
    return (
      <section className="screen detail">
        <header className="toolbar">
          <a href="#/containers">Containers</a> /<h1>Not found</h1>
        </header>
        <p role="alert" data-testid="container-not-found">
          There is no container <code>{id}</code> on this engine: it was removed, or the address is wrong.
        </p>
        <p>
          <a href="#/containers">Back to the containers</a>
        </p>
      </section>
    );
  }
  return (
    <section className="screen detail">
      <header className="toolbar">
        <Breadcrumb href="#/containers" label="Containers" title={name} />
        {busy ? <span className="badge state-busy">{busy}</span> : null}
        {c.data && !busy ? (
          <span
            className={`badge state-${c.data.State.Status}${c.data.State.ExitCode === 0 ? ' exit-ok' : ''}`}
          >
            {c.data.State.Status}
          </span>
        ) : null}
        <span className="spacer" />
        <Button
          icon={running ? Square : Play}
          label={running ? 'Stop' : 'Start'}
          disabled={!!busy}
          onClick={() => bulk.mutate({ ids: [id], action: running ? 'stop' : 'start' })}
        />
        <Button
          icon={RotateCw}
          label="Restart"
          disabled={!!busy}
          onClick={() => bulk.mutate({ ids: [id], action: 'restart' })}
        />
        <Button
          icon={Trash2}
          variant="danger"
          label="Remove"
          disabled={!!busy}
          onClick={() => setConfirming(true)}
        />
      </header>
      {confirming ? (
        <ConfirmDialog
          title={`Remove ${name}?`}
          action="Remove"
          onConfirm={() =>
            bulk.mutate({ ids: [id], action: 'remove' }, { onSuccess: () => navigate('containers') })
          }
          onClose={() => setConfirming(false)}
        >
          <p>{name} will be stopped if running, then removed with its file system. Named volumes stay.</p>
        </ConfirmDialog>
      ) : null}
      <ErrorMessage error={c.error} context="Could not inspect the container" />
      {bulk.data?.map((r) => (r.error ? <ErrorMessage key={r.id} error={r.error} /> : null))}
      {/* Why it is not running, kept by the engine (the start's own error shows just above). */}
      {c.data?.State.Error && !running && !bulk.data?.some((r) => r.error) ? (
        <div className="error" role="alert" data-testid="start-failed">
          <strong>
            {unpublishedPort(c.data.State.Error)
              ? `Port ${unpublishedPort(c.data.State.Error)} could not be published, so it did not start: `
              : 'Its last start failed: '}
          </strong>
          {fixableText(c.data.State.Error)}
        </div>
      ) : null}
      <DetailTabs tabs={TABS} current={current} href={(t) => `#/containers/${id}/${t}`} />
      <div className="tabpanel" role="tabpanel">
        {c.data && current === 'summary' ? <SummaryTab c={c.data} /> : null}
        {c.data && current === 'logs' ? <LogsTab id={id} tty={tty} created={c.data.Created} /> : null}
        {c.data && current === 'terminal' ? (
          <Suspense fallback={<p className="muted">Loading the terminal…</p>}>
            <TerminalView containerId={id} running={running} startedAt={c.data.State.StartedAt} />
          </Suspense>
        ) : null}
        {c.data && current === 'stats' ? <StatsTab id={id} running={running} /> : null}
        {c.data && current === 'files' ? (
          <FileBrowser
            id={id}
            root="/"
            rootName="root"
            noDelete={running ? undefined : 'Deleting runs rm in the container: start it first'}
          />
        ) : null}
      </div>
    </section>
  );
}

// One container: Summary, Logs, Terminal, Stats, Files, as tabs in the route.
import { lazy, Suspense } from 'react';
import { ErrorMessage } from '../../../app/error-message';
import { containerName } from '../../../app/format';
import { navigate } from '../../../app/router';
import { useBulkAction, useContainer } from '../queries';
import { FilesTab } from './files-tab';
import { LogsTab } from './logs-tab';
import { StatsTab } from './stats-tab';
import { SummaryTab } from './summary-tab';

// xterm.js is a third of the bundle: it loads when a terminal is first opened.
const TerminalView = lazy(() =>
  import('../../../terminals/terminal-view').then((m) => ({ default: m.TerminalView })),
);

const TABS = ['summary', 'logs', 'terminal', 'stats', 'files'] as const;

export function ContainerDetail({ id, tab }: { id: string; tab: string }) {
  const c = useContainer(id);
  const bulk = useBulkAction();
  const current = (TABS as readonly string[]).includes(tab) ? tab : 'summary';
  const running = c.data?.State.Running ?? false;
  const tty = c.data?.Config.Tty ?? false;
  return (
    <section className="screen detail">
      <header className="toolbar">
        <a href="#/containers">Containers</a> /<h1>{c.data ? containerName([c.data.Name], id) : id}</h1>
        {c.data ? <span className={`badge state-${c.data.State.Status}`}>{c.data.State.Status}</span> : null}
        <span className="spacer" />
        <button onClick={() => bulk.mutate({ ids: [id], action: running ? 'stop' : 'start' })}>
          {running ? 'Stop' : 'Start'}
        </button>
        <button onClick={() => bulk.mutate({ ids: [id], action: 'restart' })}>Restart</button>
        <button
          className="danger"
          onClick={() =>
            confirm('Remove this container (stopping it first)?') &&
            bulk.mutate({ ids: [id], action: 'remove' }, { onSuccess: () => navigate('containers') })
          }
        >
          Remove
        </button>
      </header>
      <ErrorMessage error={c.error} context="Could not inspect the container" />
      {bulk.data?.map((r) => (r.error ? <ErrorMessage key={r.id} error={r.error} /> : null))}
      <div role="tablist" className="tabs">
        {TABS.map((t) => (
          <a key={t} role="tab" aria-selected={t === current} href={`#/containers/${id}/${t}`}>
            {t[0].toUpperCase() + t.slice(1)}
          </a>
        ))}
      </div>
      <div className="tabpanel" role="tabpanel">
        {c.data && current === 'summary' ? <SummaryTab c={c.data} /> : null}
        {c.data && current === 'logs' ? <LogsTab id={id} tty={tty} /> : null}
        {c.data && current === 'terminal' ? (
          <Suspense fallback={<p className="muted">Loading the terminal…</p>}>
            <TerminalView containerId={id} running={running} />
          </Suspense>
        ) : null}
        {c.data && current === 'stats' ? <StatsTab id={id} running={running} /> : null}
        {c.data && current === 'files' ? <FilesTab id={id} /> : null}
      </div>
    </section>
  );
}

// Settings and diagnostics: theme; the engine mode; each supervised server's state, restarts and log; the app's
// and the servers' own CPU and memory; the engine's version and info.
import { useRef, useState } from 'react';
import { desktop, type ProcUsage, type ServiceState } from '../../../api/desktop-client';
import { ErrorMessage } from '../../../app/ui/error-message';
import { bytes } from '../../../app/ui/format';
import { useTheme, type ThemeChoice } from '../../../app/state/theme';
import { useIntentHandler } from '../../../app/state/intent';
import { useService } from '../../../app/state/use-desktop-state';
import { EngineSettings } from '../../engines/components/engine-settings';
import { useDesktopSettings, useEngineInfo, useServiceLog, useUsage } from '../queries';
import { EngineModeSettings } from './engine-mode';
import './settings.css';

export function Settings() {
  const { theme, setTheme } = useTheme();
  const { version, info } = useEngineInfo();
  const usage = useUsage();
  const prefs = useDesktopSettings();
  useIntentHandler('settings.stop-on-quit', !!prefs.query.data, (v) =>
    prefs.update.mutate({ stopContainersOnQuit: v === 'on' }),
  );
  return (
    <section className="screen settings">
      <header className="toolbar">
        <h1>Settings</h1>
      </header>
      <fieldset>
        <legend>Theme</legend>
        {(['system', 'light', 'dark'] as ThemeChoice[]).map((t) => (
          <label key={t}>
            <input type="radio" name="theme" checked={theme === t} onChange={() => setTheme(t)} /> {t}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>On quit</legend>
        <label>
          <input
            type="checkbox"
            checked={prefs.query.data?.stopContainersOnQuit ?? false}
            disabled={!prefs.query.data || prefs.update.isPending}
            onChange={(e) => prefs.update.mutate({ stopContainersOnQuit: e.target.checked })}
          />{' '}
          Stop running containers when the app quits (otherwise they keep running and the engine picks them up
          again at the next start)
        </label>
        <ErrorMessage error={prefs.query.error ?? prefs.update.error} />
      </fieldset>
      <EngineModeSettings />
      <EngineSettings />
      <DockerHost />
      <h2>Resource use</h2>
      <UsageTable usage={usage.data?.usage ?? {}} />
      <ServicePanel name="svcd" title="Engine (svcd)" />
      <ServicePanel name="svc-registry" title="Registry (svc-registry)" />
      <h2>Engine</h2>
      <ErrorMessage error={version.error ?? info.error} />
      {version.data ? (
        <dl className="kv" data-testid="engine-version">
          <dt>Version</dt>
          <dd>{version.data.Version}</dd>
          <dt>API</dt>
          <dd>
            {version.data.ApiVersion} (min {version.data.MinAPIVersion})
          </dd>
          <dt>OS / arch / kernel</dt>
          <dd>
            {version.data.Os} / {version.data.Arch} / {version.data.KernelVersion}
          </dd>
          {info.data ? (
            <>
              <dt>Containers</dt>
              <dd>
                {info.data.Containers} ({info.data.ContainersRunning} running)
              </dd>
              <dt>Images</dt>
              <dd>{info.data.Images}</dd>
            </>
          ) : null}
        </dl>
      ) : null}
    </section>
  );
}

/** CPU % between the last two samples: the screen samples every 2 s while it is open. */
function UsageTable({ usage }: { usage: Record<string, ProcUsage | undefined> }) {
  const prev = useRef<{ at: number; usage: typeof usage }>(undefined);
  const now = Date.now();
  const before = prev.current;
  if (!before || now - before.at > 1000) prev.current = { at: now, usage };
  const cpu = (k: string) => {
    const a = before?.usage[k];
    const b = usage[k];
    if (!a || !b || !before) return '—';
    return `${(((b.cpuSeconds - a.cpuSeconds) / ((now - before.at) / 1000)) * 100).toFixed(1)} %`;
  };
  return (
    <table className="table" data-testid="usage">
      <thead>
        <tr>
          <th>Process</th>
          <th>PID</th>
          <th>CPU</th>
          <th>Memory (RSS)</th>
        </tr>
      </thead>
      <tbody>
        {Object.keys(usage).length === 0 ? (
          <tr>
            <td colSpan={4} className="muted">
              Measuring…
            </td>
          </tr>
        ) : null}
        {Object.entries(usage).map(([k, u]) => (
          <tr key={k}>
            <td>{k === 'app' ? 'Svc Desktop (main)' : k}</td>
            <td>{u?.pid}</td>
            <td>{cpu(k)}</td>
            <td>{bytes(u?.rssBytes)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The address the docker CLI, docker-compose and docker-py take to reach this engine. */
function DockerHost() {
  const host = useService('svcd')?.endpoint;
  const [copied, setCopied] = useState(false);
  const copy = () =>
    void navigator.clipboard.writeText(`export DOCKER_HOST=${host}`).then(() => setCopied(true));
  useIntentHandler('settings.copy-docker-host', !!host?.startsWith('unix://'), copy);
  if (!host?.startsWith('unix://')) return null;
  return (
    <fieldset>
      <legend>Use the engine from a terminal</legend>
      <div className="toolbar">
        <code data-testid="docker-host">export DOCKER_HOST={host}</code>
        <button onClick={copy}>{copied ? 'Copied' : 'Copy'}</button>
      </div>
      <p className="muted">Then docker, docker-compose and docker-py talk to this engine.</p>
    </fieldset>
  );
}

function ServicePanel({ name, title }: { name: string; title: string }) {
  const s = useService(name);
  const log = useServiceLog(name, !s?.external);
  return (
    <section className="service" data-testid={`service-${name}`}>
      <h2>{title}</h2>
      {s ? <ServiceFacts s={s} /> : <p className="muted">unknown</p>}
      {s?.external ? (
        <>
          <p className="muted">
            The system&apos;s svcd (the svcd service): the app watches it and never starts or stops it. Its
            log is the system&apos;s: <code>journalctl -u svcd</code>.
          </p>
          <div className="toolbar">
            <button onClick={() => void desktop.restart(name)}>Check again</button>
          </div>
        </>
      ) : (
        <ServiceLog name={name} logFile={s?.logFile} log={log} />
      )}
    </section>
  );
}

function ServiceLog({
  name,
  logFile,
  log,
}: {
  name: string;
  logFile?: string;
  log: ReturnType<typeof useServiceLog>;
}) {
  return (
    <>
      <div className="toolbar">
        <button onClick={() => void desktop.restart(name).then(() => log.refetch())}>Restart</button>
        <button onClick={() => void log.refetch()}>Refresh log</button>
        <a className="button" href={desktop.logDownloadUrl(name)} download={`${name}.log`}>
          Download full log
        </a>
      </div>
      <ErrorMessage error={log.error} context="Log" />
      {log.data !== undefined ? (
        <>
          <p className="muted">Last 64 kB of {logFile} (the download has all of it):</p>
          <pre className="raw log-tail">{log.data || '(empty)'}</pre>
        </>
      ) : null}
    </>
  );
}

function ServiceFacts({ s }: { s: ServiceState }) {
  return (
    <dl className="kv">
      <dt>State</dt>
      <dd>
        <span className={`badge status-${s.status}`}>{s.status}</span> since{' '}
        {new Date(s.since).toLocaleTimeString()}
        {s.adopted ? ' (already running when the app started; not managed by it)' : ''}
      </dd>
      {s.reason ? (
        <>
          <dt>Reason</dt>
          <dd className="error-text">{s.reason}</dd>
        </>
      ) : null}
      <dt>Endpoint</dt>
      <dd>
        <code>{s.endpoint}</code>
      </dd>
      <dt>PID</dt>
      <dd>{s.pid ?? '—'}</dd>
      <dt>Restarts after a crash</dt>
      <dd data-testid="restarts">{s.restarts}</dd>
    </dl>
  );
}

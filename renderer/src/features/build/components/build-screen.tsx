// The Build screen: a folder chosen (Electron's dialog, or an upload of the folder in a browser)
// with its ignore file applied and its size shown, the build's options, the running build's
// output folded per step, and this session's builds with their outcome.
import { useEffect, useState, type FormEvent } from 'react';
import { Ban, FolderOpen, Hammer, RotateCw } from 'lucide-react';
import { useQueryClient } from '@tanstack/react-query';
import { errorText } from '../../../api/gateway';
import { bytes, plural, shortId } from '../../../app/ui/format';
import { Button } from '../../../app/ui/button';
import { EmptyState } from '../../../app/ui/empty-state';
import { EngineDown } from '../../../app/ui/engine-down';
import { useEngineUp } from '../../../app/state/use-desktop-state';
import { useNow } from '../../../app/ui/use-now';
import { folderContext, pickedFolder, type FolderContext } from '../build-context';
import type { BuildStep } from '../build-output';
import { cancelBuild, rebuild, showBuild, startBuild, useBuilds, type BuildRecord } from '../store';
import './build.css';
import { useEngines } from '../../../app/state/engines';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** `KEY=VALUE` lines as build args; a line without `=` is refused, naming it. */
function parseArgs(text: string): Record<string, string> {
  const args: Record<string, string> = {};
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (!line) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) throw new Error(`Build arg "${line}" needs the form NAME=value.`);
    args[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return args;
}

function BuildForm() {
  const up = useEngineUp();
  const [context, setContext] = useState<FolderContext>();
  const [reading, setReading] = useState(false);
  const [instructions, setInstructions] = useState('');
  const [tags, setTags] = useState('');
  const [args, setArgs] = useState('');
  const [target, setTarget] = useState('');
  const [noCache, setNoCache] = useState(false);
  const [pull, setPull] = useState(false);
  const [error, setError] = useState<string>();

  const take = async (
    pick: () => Promise<{ folder: string; files: { path: string; f: File }[] } | undefined>,
  ) => {
    setError(undefined);
    setReading(true);
    try {
      const picked = await pick();
      if (!picked) return;
      const c = await folderContext(picked.folder, picked.files);
      setContext(c);
      setInstructions(c.instructionFiles[0] ?? '');
      if (!tags) setTags(`${c.folder.toLowerCase().replace(/[^a-z0-9._-]+/g, '-')}:latest`);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setReading(false);
    }
  };
  const chooseNative = window.svcDesktop?.chooseFolder;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!context) return;
    try {
      startBuild(context, {
        tags: tags.split(/[\s,]+/).filter(Boolean),
        instructionsFile: instructions,
        buildArgs: parseArgs(args),
        target: target.trim(),
        noCache,
        pull,
      });
      setError(undefined);
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <form className="form build-form" onSubmit={submit} aria-label="Build an image">
      <div className="build-folder">
        {chooseNative ? (
          <Button
            icon={FolderOpen}
            label="Choose folder…"
            onClick={() =>
              void take(async () => {
                const chosen = await chooseNative();
                return (
                  chosen && {
                    folder: chosen.folder,
                    files: chosen.files.map((x) => ({
                      path: x.path,
                      f: new File([x.data as BlobPart], x.path, { lastModified: x.mtime }),
                    })),
                  }
                );
              })
            }
          />
        ) : (
          <label className="button">
            <FolderOpen size={16} aria-hidden /> Choose folder…
            <input
              type="file"
              className="sr-only"
              aria-label="Build context folder"
              // A folder, not files: the browser asks for one and gives every file under it.
              {...{ webkitdirectory: '', directory: '' }}
              onChange={(e) => {
                const files = [...(e.target.files ?? [])];
                e.target.value = '';
                void take(async () => (files.length ? pickedFolder(files) : undefined));
              }}
            />
          </label>
        )}
        <span data-testid="build-context-summary" aria-live="polite">
          {reading
            ? 'Reading the folder…'
            : context
              ? `${context.folder}: ${plural(context.entries.length, 'file')}, ${bytes(context.size)} to send` +
                (context.ignoreFile ? ` (${context.ignored} left out by ${context.ignoreFile})` : '')
              : 'No folder chosen: the folder is the build context, sent to the engine with its instructions file.'}
        </span>
      </div>
      <div className="row">
        <label>
          Instructions file
          <select value={instructions} onChange={(e) => setInstructions(e.target.value)} disabled={!context}>
            {(context?.instructionFiles ?? []).map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
            <option value="">The engine&apos;s default (Svcfile, then Dockerfile)</option>
          </select>
        </label>
        <label>
          Tags
          <input value={tags} onChange={(e) => setTags(e.target.value)} placeholder="name:tag, another:tag" />
        </label>
        <label>
          Target stage
          <input value={target} onChange={(e) => setTarget(e.target.value)} placeholder="the last stage" />
        </label>
      </div>
      <div className="row">
        <label>
          Build args (NAME=value, one a line)
          <textarea rows={2} value={args} onChange={(e) => setArgs(e.target.value)} />
        </label>
        <div className="build-flags">
          <label className="inline">
            <input type="checkbox" checked={noCache} onChange={(e) => setNoCache(e.target.checked)} /> No
            cache
          </label>
          <label className="inline">
            <input type="checkbox" checked={pull} onChange={(e) => setPull(e.target.checked)} /> Pull base
            images
          </label>
          <Button type="submit" icon={Hammer} variant="primary" label="Build" disabled={!context || !up} />
        </div>
      </div>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}

function Step({ step, open, now }: { step: BuildStep; open: boolean; now: number }) {
  return (
    <details className="build-step" open={open} data-testid="build-step">
      <summary>
        <span className="ellipsis">{step.title}</span>
        {step.cached ? <span className="badge build-cached">cache</span> : null}
        <span className="muted">{seconds((step.endedAt ?? now) - step.startedAt)}</span>
      </summary>
      <pre>{step.lines.join('\n')}</pre>
    </details>
  );
}

function BuildView({ b, engineName }: { b: BuildRecord; engineName: string }) {
  const running = b.outcome === 'running';
  const steps = b.output.steps;
  const cached = steps.filter((s) => s.cached).length;
  const now = useNow();
  return (
    <section className="build-view" aria-label="Build output">
      <header className="toolbar">
        <h2>
          {b.options.tags[0] ?? b.context.folder}{' '}
          <span className={`badge build-${b.outcome}`} data-testid="build-outcome">
            {b.outcome}
          </span>
        </h2>
        <span className="muted">
          on {engineName} · {plural(steps.filter((s) => s.title.startsWith('Step ')).length, 'step')}
          {cached ? ` · ${cached} from cache` : ''}
          {b.endedAt ? ` · ${seconds(b.endedAt - b.startedAt)}` : ''}
        </span>
        <span className="spacer" />
        {b.output.imageId ? (
          <a href={`#/images/${encodeURIComponent(b.output.imageId)}`} data-testid="built-image">
            Image {shortId(b.output.imageId)}
          </a>
        ) : null}
        {running ? (
          <Button icon={Ban} variant="danger" label="Cancel build" onClick={() => cancelBuild(b.id)} />
        ) : (
          <Button icon={RotateCw} label="Rebuild" onClick={() => rebuild(b.id)} />
        )}
      </header>
      {b.output.error ? (
        <p className="error" role="alert">
          {b.output.error}
        </p>
      ) : null}
      <div className="build-steps">
        {steps.map((s, i) => (
          // The running step and a failed build's last step stay open; the others fold.
          <Step
            key={i}
            step={s}
            now={now}
            open={i === steps.length - 1 && (running || b.outcome === 'failed')}
          />
        ))}
      </div>
    </section>
  );
}

export function BuildScreen() {
  const up = useEngineUp();
  const { builds, shown } = useBuilds();
  const { all } = useEngines();
  const qc = useQueryClient();
  const nameOf = (id: string) => all.find((e) => e.id === id)?.name ?? id;
  const current = builds.find((b) => b.id === shown) ?? builds[0];
  // A finished build made or retagged images: the images screen reads them again.
  const done = builds.filter((b) => b.outcome !== 'running').length;
  useEffect(() => void qc.invalidateQueries({ queryKey: ['images'] }), [done, qc]);
  return (
    <section className="screen" aria-labelledby="build-title">
      <header className="toolbar">
        <h1 id="build-title">Build</h1>
      </header>
      {up ? null : <EngineDown />}
      <BuildForm />
      {current ? (
        <BuildView b={current} engineName={nameOf(current.engineId)} />
      ) : (
        <EmptyState icon={Hammer} title="No builds yet">
          <p>
            Choose a folder with a Svcfile or Dockerfile. Its <code>.svcignore</code> or{' '}
            <code>.dockerignore</code> is applied before anything is sent.
          </p>
        </EmptyState>
      )}
      {builds.length ? (
        <table className="table" aria-label="Builds">
          <thead>
            <tr>
              <th>Outcome</th>
              <th>Tags</th>
              <th>Folder</th>
              <th>Engine</th>
              <th>Time</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {builds.map((b) => (
              <tr key={b.id} aria-current={b === current ? 'true' : undefined}>
                <td>
                  <span className={`badge build-${b.outcome}`}>{b.outcome}</span>
                </td>
                <td>{b.options.tags.join(', ') || '—'}</td>
                <td>{b.context.folder}</td>
                <td>{nameOf(b.engineId)}</td>
                <td>{b.endedAt ? seconds(b.endedAt - b.startedAt) : '…'}</td>
                <td className="actions">
                  <Button label="Show" onClick={() => showBuild(b.id)} />
                  <Button
                    label="Rebuild"
                    icon={RotateCw}
                    disabled={b.outcome === 'running'}
                    onClick={() => rebuild(b.id)}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

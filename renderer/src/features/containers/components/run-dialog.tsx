// Run a container as `docker run` would: the image pulled first when the engine lacks it; name,
// command, env, ports, volumes, network, working directory, user, init, labels, restart policy.
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { engine } from '../../../api/engine-client';
import { Dialog } from '../../../app/dialog';
import { ErrorMessage } from '../../../app/error-message';
import { navigate } from '../../../app/router';
import { ProgressView } from '../../images/components/progress-dialog';
import type { Progress } from '../../images/progress';
import { useImages } from '../../images/queries';
import { createBody, emptyRunForm, FormErrors, type RunForm } from '../create-body';
import { usePortPublishing, useRunContainer } from '../queries';

/** The local names an image field may mean: `busybox` is `busybox:latest`. */
const withTag = (ref: string) => (/[:@][^/]*$/.test(ref) ? ref : `${ref}:latest`);

export function RunDialog({ image, onClose }: { image?: string; onClose: () => void }) {
  const [form, setForm] = useState<RunForm>({ ...emptyRunForm, image: image ?? '' });
  const [problems, setProblems] = useState<string[]>([]);
  const [pull, setPull] = useState<Progress>();
  const problemsRef = useRef<HTMLDivElement>(null);
  // The list sits below a long form: bring it into view when a submit finds problems.
  useEffect(() => {
    // Braces: Chromium's scrollIntoView returns a promise, which React would take for a cleanup.
    void problemsRef.current?.scrollIntoView({ block: 'nearest' });
  }, [problems]);
  const abort = useRef(new AbortController());
  const run = useRunContainer(setPull, abort.current.signal);
  const images = useImages();
  const ports = usePortPublishing();
  const names = useMemo(
    () => (images.data ?? []).flatMap((i) => i.RepoTags ?? []).filter((t) => t !== '<none>:<none>'),
    [images.data],
  );
  const ref = form.image.trim();
  const local = ref !== '' && names.includes(withTag(ref));
  const config = useQuery({
    queryKey: ['image', { id: withTag(ref) }],
    queryFn: () => engine.imageInspect(withTag(ref)),
    enabled: local,
  });
  const noDefault =
    local && !!config.data && !config.data.Config.Cmd?.length && !config.data.Config.Entrypoint?.length;
  const needsCommand = noDefault && !form.command.trim();

  // A change starts a new attempt: the engine's answer to the last one no longer applies.
  const change = (patch: Partial<RunForm>) => {
    setForm({ ...form, ...patch });
    if (run.error) run.reset();
  };
  const field = (k: keyof RunForm) => ({
    value: form[k] as string,
    onChange: (e: { target: { value: string } }) => change({ [k]: e.target.value }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    let found: string[] = [];
    let body;
    try {
      body = createBody(form);
    } catch (err) {
      found = err instanceof FormErrors ? err.problems : [String(err)];
    }
    if (needsCommand) found.push(`${ref} has no default command: give one`);
    setProblems(found);
    if (found.length || !body) return;
    setPull(undefined);
    run.mutate(
      { body, name: form.name.trim() || undefined },
      { onSuccess: (c) => (onClose(), navigate('containers', c.Id, 'summary')) },
    );
  };
  const close = () => (abort.current.abort(), onClose());
  const portsOff = ports.data === false;
  return (
    <Dialog title="Run a container" onClose={close}>
      <form onSubmit={submit} className="form" noValidate>
        <label>
          Image <input autoFocus placeholder="repository:tag" list="local-images" {...field('image')} />
        </label>
        <datalist id="local-images">
          {names.map((n) => (
            <option key={n} value={n} />
          ))}
        </datalist>
        {ref && images.isSuccess && !local ? (
          <p className="hint">Not on this engine yet: it is pulled first, as docker run does.</p>
        ) : null}
        <label>
          Name <input placeholder="(generated)" {...field('name')} />
        </label>
        <label>
          Command{' '}
          <input
            placeholder={noDefault ? '(required: the image has none)' : '(image default)'}
            aria-describedby="command-hint"
            {...field('command')}
          />
        </label>
        {noDefault ? (
          <p className="hint" id="command-hint">
            This image has no default command: give one.
          </p>
        ) : null}
        <label>
          Environment <textarea rows={2} placeholder="KEY=value, one per line" {...field('env')} />
        </label>
        <label>
          Ports{' '}
          <textarea
            rows={2}
            placeholder="8080:80/tcp, one per line"
            disabled={portsOff}
            aria-describedby="ports-hint"
            {...field('ports')}
          />
        </label>
        {portsOff ? (
          <p className="hint" id="ports-hint">
            Publishing ports is not available yet: this engine has no networks API, so nothing would be
            published.
          </p>
        ) : null}
        <label>
          Volumes{' '}
          <textarea rows={2} placeholder="myvolume:/data or /host/path:/data:ro" {...field('volumes')} />
        </label>
        <div className="row">
          <label>
            Network mode <input list="network-modes" placeholder="bridge" {...field('network')} />
            <datalist id="network-modes">
              {['bridge', 'host', 'none', 'container:'].map((m) => (
                <option key={m} value={m} />
              ))}
            </datalist>
          </label>
          <label>
            Restart policy
            <select {...field('restart')}>
              <option value="no">no</option>
              <option value="on-failure">on-failure</option>
              <option value="unless-stopped">unless-stopped</option>
              <option value="always">always</option>
            </select>
          </label>
        </div>
        <div className="row">
          <label>
            Working directory <input placeholder="(image default)" {...field('workdir')} />
          </label>
          <label>
            User <input placeholder="(image default) user[:group]" {...field('user')} />
          </label>
        </div>
        <label>
          Labels <textarea rows={2} placeholder="KEY=value, one per line" {...field('labels')} />
        </label>
        <label className="inline">
          <input type="checkbox" checked={form.tty} onChange={(e) => change({ tty: e.target.checked })} />{' '}
          Allocate a terminal (TTY)
        </label>
        <label className="inline">
          <input type="checkbox" checked={form.init} onChange={(e) => change({ init: e.target.checked })} />{' '}
          Run an init process (reaps zombies, forwards signals)
        </label>
        {problems.length ? (
          <div className="error" role="alert" ref={problemsRef}>
            <strong>Check the form:</strong>
            <ul>
              {problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          </div>
        ) : null}
        {pull ? <ProgressView progress={pull} /> : null}
        <ErrorMessage error={run.error} context="The engine refused" />
        <footer>
          <button type="button" onClick={close}>
            Cancel
          </button>
          <button type="submit" disabled={run.isPending}>
            {run.isPending ? (pull && !pull.error ? 'Pulling…' : 'Starting…') : 'Run'}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}

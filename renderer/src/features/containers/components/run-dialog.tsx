// Run a container as `docker run` would: the image pulled first when the engine lacks it; name,
// command, env (typed or from an env file), ports (each host port checked free), volumes and
// binds, tmpfs, networks from the engine's list with aliases, working directory, user, init,
// labels, restart policy.
import { useMemo, useRef, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { engine } from '../../../api/engine-client';
import { useEngineTarget } from '../../../api/engine-target';
import { Dialog } from '../../../app/ui/dialog';
import { FormFooter } from '../../../app/ui/form-problems';
import { navigate } from '../../../app/state/router';
import { useDebounced } from '../../../app/ui/use-debounced';
import {
  createBody,
  emptyRunForm,
  envFileLines,
  hostPorts,
  laterNetworks,
  type RunForm,
} from '../create-body';
import { useHostPortProblems, usePortPublishing, useRunContainer } from '../queries';
import './containers.css';
import { useImages, useNetworks } from '../../../app/state/engine-lists';
import { FormErrors } from '../../../app/ui/form-input';
import type { Progress } from '../../../api/pull-progress';
import { ProgressView } from '../../../app/ui/progress-view';
import { useEngines } from '../../../app/state/engines';

/** The local names an image field may mean: `busybox` is `busybox:latest`. */
const withTag = (ref: string) => (/[:@][^/]*$/.test(ref) ? ref : `${ref}:latest`);

export function RunDialog({ image, onClose }: { image?: string; onClose: () => void }) {
  const [form, setForm] = useState<RunForm>({ ...emptyRunForm, image: image ?? '' });
  const [problems, setProblems] = useState<string[]>([]);
  const [pull, setPull] = useState<Progress>();
  const abort = useRef(new AbortController());
  const run = useRunContainer(setPull, abort.current.signal);
  const images = useImages();
  const ports = usePortPublishing();
  const networks = useNetworks();
  const targetId = useEngineTarget((t) => t.id);
  const onThisMachine = useEngines().all.find((e) => e.id === targetId)?.kind === 'unix';
  const wanted = useDebounced(
    useMemo(() => hostPorts(form.ports), [form.ports]),
    300,
  );
  const portProblems = useHostPortProblems(wanted, onThisMachine);
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
    found.push(...portProblems.values());
    setProblems(found);
    if (found.length || !body) return;
    setPull(undefined);
    run.mutate(
      { body, name: form.name.trim() || undefined, networks: laterNetworks(form) },
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
        <label className="inline file-pick">
          Add an env file{' '}
          <input
            type="file"
            aria-label="Env file"
            onChange={(e) => {
              const file = e.target.files?.[0];
              e.target.value = '';
              void file
                ?.text()
                .then((t) =>
                  change({ env: [form.env.trim(), ...envFileLines(t)].filter(Boolean).join('\n') }),
                );
            }}
          />
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
        ) : portProblems.size ? (
          <ul className="hint" id="ports-hint" data-testid="port-problems">
            {[...portProblems.values()].map((p) => (
              <li key={p}>{p}: choose another host port</li>
            ))}
          </ul>
        ) : null}
        <label>
          Volumes{' '}
          <textarea rows={2} placeholder="myvolume:/data or /host/path:/data:ro" {...field('volumes')} />
        </label>
        <label>
          Tmpfs <textarea rows={1} placeholder="/run/cache:size=64m, one per line" {...field('tmpfs')} />
        </label>
        <NetworkChoice
          // host and none are modes every engine has, listed or not (Podman lists neither).
          names={[...new Set([...(networks.data ?? []).map((n) => n.Name), 'host', 'none'])]}
          value={form.networks}
          onChange={(v) => change({ networks: v })}
        />
        <label>
          Restart policy
          <select {...field('restart')}>
            <option value="no">no</option>
            <option value="on-failure">on-failure</option>
            <option value="unless-stopped">unless-stopped</option>
            <option value="always">always</option>
          </select>
        </label>
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
        <FormFooter
          problems={problems}
          error={run.error}
          pending={run.isPending}
          onCancel={close}
          submit={run.isPending ? (pull && !pull.error ? 'Pulling…' : 'Starting…') : 'Run'}
        >
          {pull ? <ProgressView progress={pull} /> : null}
        </FormFooter>
      </form>
    </Dialog>
  );
}

/**
 * The networks the container joins, picked from the engine's list, each with its aliases; the
 * first picked is the one it is created on. Host and none stand alone. Nothing picked: bridge.
 */
function NetworkChoice({
  names,
  value,
  onChange,
}: {
  names: string[];
  value: RunForm['networks'];
  onChange: (v: RunForm['networks']) => void;
}) {
  const picked = (name: string) => value.find((n) => n.name === name);
  const toggle = (name: string, on: boolean) =>
    onChange(
      !on
        ? value.filter((n) => n.name !== name)
        : ['host', 'none'].includes(name)
          ? [{ name, aliases: '' }]
          : [...value.filter((n) => !['host', 'none'].includes(n.name)), { name, aliases: '' }],
    );
  return (
    <fieldset className="network-choice">
      <legend>Networks {value.length ? null : <span className="muted">(none picked: bridge)</span>}</legend>
      {names.map((name) => {
        const p = picked(name);
        const own = !['bridge', 'host', 'none'].includes(name);
        return (
          <div key={name} className="network-pick">
            <label className="inline">
              <input type="checkbox" checked={!!p} onChange={(e) => toggle(name, e.target.checked)} /> {name}
              {p && value[0] === p && value.length > 1 ? <span className="muted"> (created on)</span> : null}
            </label>
            {p && own ? (
              <input
                aria-label={`Aliases on ${name}`}
                placeholder="aliases: web, api"
                value={p.aliases}
                onChange={(e) =>
                  onChange(value.map((n) => (n.name === name ? { ...n, aliases: e.target.value } : n)))
                }
              />
            ) : null}
          </div>
        );
      })}
    </fieldset>
  );
}

// The run dialog's text fields turned into an Engine create body, as `docker run` would:
// env lines KEY=VALUE, labels KEY=VALUE, ports [HOST_IP:]HOST:CONTAINER[/PROTO], volumes
// SOURCE:TARGET[:ro], tmpfs TARGET[:OPTIONS], networks each with its aliases (the first at
// create, the others connected before the start). Every wrong line is named at once.
import type { ContainerCreateBody } from '../../api/engine-types';
import { aliasList, FormErrors, keyValues, lines, splitCommand } from '../../app/ui/form-input';

export interface RunForm {
  image: string;
  name: string;
  command: string;
  env: string;
  ports: string;
  volumes: string;
  restart: string;
  tty: boolean;
  /** The networks joined, first the one the container is created on; empty means bridge. */
  networks: { name: string; aliases: string }[];
  tmpfs: string;
  workdir: string;
  user: string;
  init: boolean;
  labels: string;
}

export const emptyRunForm: RunForm = {
  image: '',
  name: '',
  command: '',
  env: '',
  ports: '',
  volumes: '',
  restart: 'no',
  tty: true,
  networks: [],
  tmpfs: '',
  workdir: '',
  user: '',
  init: false,
  labels: '',
};

/** An env file's variables as `docker run --env-file` reads them: `#` comments and blanks skipped. */
export function envFileLines(text: string): string[] {
  return lines(text).filter((l) => !l.startsWith('#'));
}

/** Modes that are not networks a container joins beside others. */
const soloModes = ['host', 'none'];

/** CONTAINER, HOST:CONTAINER or IP:HOST:CONTAINER, each optionally /tcp, /udp or /sctp. */
function parsePort(spec: string): { ip: string; host: string; container: string; proto: string } | undefined {
  const [addr, proto = 'tcp', extra] = spec.split('/');
  const parts = addr.split(':');
  const container = parts.pop() ?? '';
  const host = parts.pop() ?? '';
  const ip = parts.join(':');
  const valid =
    extra === undefined &&
    ['tcp', 'udp', 'sctp'].includes(proto) &&
    /^\d+$/.test(container) &&
    /^\d*$/.test(host) &&
    (ip === '' || /^[\d.]+$/.test(ip));
  return valid ? { ip, host, container, proto } : undefined;
}

/** The host ports the form publishes, for the check that each is free. */
export function hostPorts(text: string): number[] {
  return lines(text).flatMap((l) => {
    const host = parsePort(l)?.host;
    return host ? [Number(host)] : [];
  });
}

export function createBody(f: RunForm): ContainerCreateBody {
  const problems: string[] = [];
  if (!f.image.trim()) problems.push('an image is required');
  const exposed: Record<string, Record<string, never>> = {};
  const bindings: Record<string, { HostIp: string; HostPort: string }[]> = {};
  for (const p of lines(f.ports)) {
    const port = parsePort(p);
    if (!port) {
      problems.push(`port "${p}" is not [HOST_IP:]HOST:CONTAINER[/PROTO]`);
      continue;
    }
    const key = `${port.container}/${port.proto}`;
    exposed[key] = {};
    (bindings[key] ??= []).push({ HostIp: port.ip, HostPort: port.host });
  }
  for (const e of lines(f.env)) if (!e.includes('=')) problems.push(`environment "${e}" is not KEY=VALUE`);
  const labels = keyValues(f.labels, 'label', problems);
  for (const v of lines(f.volumes))
    if (!v.includes(':')) problems.push(`volume "${v}" is not SOURCE:TARGET[:ro]`);
  const tmpfs: Record<string, string> = {};
  for (const t of lines(f.tmpfs)) {
    const [target, ...opts] = t.split(':');
    if (!target.startsWith('/')) problems.push(`tmpfs "${t}" is not /TARGET[:OPTIONS]`);
    else tmpfs[target] = opts.join(':');
  }
  const [first] = f.networks.length ? f.networks : [{ name: 'bridge', aliases: '' }];
  const solo = f.networks.find((n) => soloModes.includes(n.name) || n.name.startsWith('container:'));
  if (solo && f.networks.length > 1) problems.push(`network ${solo.name} cannot be joined with others`);
  for (const n of f.networks)
    if (aliasList(n.aliases).length && (n.name === 'bridge' || soloModes.includes(n.name)))
      problems.push(`aliases work on networks you made, not on ${n.name}`);
  const workdir = f.workdir.trim();
  if (workdir && !workdir.startsWith('/'))
    problems.push(`working directory "${workdir}" is not an absolute path`);
  if (problems.length) throw new FormErrors(problems);
  const cmd = splitCommand(f.command);
  return {
    Image: f.image.trim(),
    Cmd: cmd.length ? cmd : undefined,
    Env: lines(f.env),
    Tty: f.tty,
    OpenStdin: f.tty,
    WorkingDir: workdir || undefined,
    User: f.user.trim() || undefined,
    Labels: labels,
    ExposedPorts: exposed,
    HostConfig: {
      PortBindings: bindings,
      Binds: lines(f.volumes),
      Tmpfs: tmpfs,
      RestartPolicy: { Name: f.restart },
      NetworkMode: first.name,
      Init: f.init,
    },
    NetworkingConfig: aliasList(first.aliases).length
      ? { EndpointsConfig: { [first.name]: { Aliases: aliasList(first.aliases) } } }
      : undefined,
  };
}

/** The networks after the first, connected between create and start (create takes one only). */
export function laterNetworks(f: RunForm): { name: string; aliases: string[] }[] {
  return f.networks.slice(1).map((n) => ({ name: n.name, aliases: aliasList(n.aliases) }));
}

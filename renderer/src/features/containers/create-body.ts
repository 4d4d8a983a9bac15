// The run dialog's text fields turned into an Engine create body, as `docker run` would:
// env lines KEY=VALUE, labels KEY=VALUE, ports [HOST_IP:]HOST:CONTAINER[/PROTO], volumes
// SOURCE:TARGET[:ro]. Every wrong line is named at once, not the first only.
import type { ContainerCreateBody } from '../../api/engine-types';

export interface RunForm {
  image: string;
  name: string;
  command: string;
  env: string;
  ports: string;
  volumes: string;
  restart: string;
  tty: boolean;
  network: string;
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
  network: 'bridge',
  workdir: '',
  user: '',
  init: false,
  labels: '',
};

/** Every problem the form has, one per wrong line or field. */
export class FormErrors extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

const lines = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** Splits a command line on spaces, keeping quoted parts together. */
export function splitCommand(s: string): string[] {
  return [...s.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

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
  const labels: Record<string, string> = {};
  for (const l of lines(f.labels)) {
    const eq = l.indexOf('=');
    if (eq <= 0) problems.push(`label "${l}" is not KEY=VALUE`);
    else labels[l.slice(0, eq)] = l.slice(eq + 1);
  }
  for (const v of lines(f.volumes))
    if (!v.includes(':')) problems.push(`volume "${v}" is not SOURCE:TARGET[:ro]`);
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
      RestartPolicy: { Name: f.restart },
      NetworkMode: f.network.trim() || 'bridge',
      Init: f.init,
    },
  };
}

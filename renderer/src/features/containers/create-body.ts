// The run dialog's text fields turned into an Engine create body, as `docker run` would:
// env lines KEY=VALUE, ports [HOST_IP:]HOST:CONTAINER[/PROTO], volumes SOURCE:TARGET[:ro].
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
};

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
function parsePort(spec: string): { ip: string; host: string; container: string; proto: string } {
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
  if (!valid) throw new Error(`port "${spec}" is not [HOST_IP:]HOST:CONTAINER[/PROTO]`);
  return { ip, host, container, proto };
}

export function createBody(f: RunForm): ContainerCreateBody {
  const exposed: Record<string, Record<string, never>> = {};
  const bindings: Record<string, { HostIp: string; HostPort: string }[]> = {};
  for (const p of lines(f.ports)) {
    const { ip, host, container, proto } = parsePort(p);
    const key = `${container}/${proto}`;
    exposed[key] = {};
    (bindings[key] ??= []).push({ HostIp: ip, HostPort: host });
  }
  for (const e of lines(f.env)) if (!e.includes('=')) throw new Error(`environment "${e}" is not KEY=VALUE`);
  for (const v of lines(f.volumes))
    if (!v.includes(':')) throw new Error(`volume "${v}" is not SOURCE:TARGET[:ro]`);
  const cmd = splitCommand(f.command);
  return {
    Image: f.image.trim(),
    Cmd: cmd.length ? cmd : undefined,
    Env: lines(f.env),
    Tty: f.tty,
    OpenStdin: f.tty,
    ExposedPorts: exposed,
    HostConfig: {
      PortBindings: bindings,
      Binds: lines(f.volumes),
      RestartPolicy: { Name: f.restart },
    },
  };
}

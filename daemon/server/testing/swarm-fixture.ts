// What the swarm suites share: JSON requests, a service's tasks once they are as wanted, busybox
// task templates, and commands run in a container.
import type { ServiceSpec, SwarmService, SwarmTask } from '../../api/swarm-types';
import { expectStatus } from '../../testing/containers-fixture';
import type { SvcdInstance } from '../../testing/svcd-harness';
import { pollUntil } from '../../testing/poll';

export async function json<T>(
  svcd: SvcdInstance,
  method: string,
  path: string,
  body?: unknown,
  status = 200,
): Promise<T> {
  return expectStatus(await svcd.request(method, path, { body }), status, `${method} ${path}`).json<T>();
}

export const tasksOf = (svcd: SvcdInstance, service: string) =>
  json<SwarmTask[]>(
    svcd,
    'GET',
    `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: [service] }))}`,
  );

/** The service's tasks once `check` holds for them. */
export function tasksWhen(
  svcd: SvcdInstance,
  service: string,
  what: string,
  check: (tasks: SwarmTask[]) => boolean,
) {
  return pollUntil(
    what,
    async () => {
      const tasks = await tasksOf(svcd, service);
      return check(tasks) ? tasks : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
}

export const running = (tasks: SwarmTask[]) => tasks.filter((t) => t.Status.State === 'running');

export const busyboxTask = (command: string, extra: Record<string, unknown> = {}) => ({
  ContainerSpec: { Image: 'busybox', Command: ['sh', '-c', command], StopGracePeriod: 1e9, ...extra },
  RestartPolicy: { Condition: 'any', Delay: 0 },
});

/** A task command: an HTTP server answering with the task's own hostname. */
export const hostnameServer = 'mkdir -p /www; hostname > /www/index.html; httpd -f -p 80 -h /www';

/** The last line of the answer to `GET /` on port 80 of `host`, fetched from the container. */
export const httpFrom = async (svcd: SvcdInstance, id: string, host: string) =>
  (
    await execIn(svcd, id, `printf 'GET / HTTP/1.0\\r\\n\\r\\n' | timeout 5 nc ${host} 80 | tail -n 1`)
  ).trim();

/** What `cmd` printed (through a TTY) when run in the container. */
export async function execIn(svcd: SvcdInstance, id: string, cmd: string): Promise<string> {
  const { Id } = await json<{ Id: string }>(
    svcd,
    'POST',
    `/containers/${id}/exec`,
    { Cmd: ['sh', '-c', cmd], AttachStdout: true, AttachStderr: true },
    201,
  );
  const res = await svcd.request('POST', `/exec/${Id}/start`, { body: { Detach: false, Tty: true } });
  return res.text();
}

/** The service once `check` holds for it. */
export function serviceWhen(
  svcd: SvcdInstance,
  service: string,
  what: string,
  check: (service: SwarmService) => boolean,
) {
  return pollUntil(
    what,
    async () => {
      const s = await json<SwarmService>(svcd, 'GET', `/services/${service}`);
      return check(s) ? s : undefined;
    },
    { timeoutMs: 90_000, intervalMs: 250 },
  );
}

/** Updates the service at its current version with the spec `change` makes of its own. */
export async function updateService(
  svcd: SvcdInstance,
  service: string,
  change: (spec: ServiceSpec) => ServiceSpec,
): Promise<void> {
  const s = await json<SwarmService>(svcd, 'GET', `/services/${service}`);
  await json(svcd, 'POST', `/services/${s.ID}/update?version=${s.Version.Index}`, change(s.Spec));
}

/** Creates a service from the spec and answers its ID. */
export async function createService(svcd: SvcdInstance, spec: Record<string, unknown>): Promise<string> {
  return (await json<{ ID: string }>(svcd, 'POST', '/services/create', spec, 201)).ID;
}

/** Makes the engine a one-node swarm and answers the node's ID. */
export const initSwarm = (svcd: SvcdInstance) =>
  json<string>(svcd, 'POST', '/swarm/init', { ListenAddr: '127.0.0.1:2377', AdvertiseAddr: '127.0.0.1' });

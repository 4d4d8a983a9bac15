// Container lifecycle through the Engine API: the median create+start+wait+delete latency of a
// `true` container and of each of those four calls, and GET /containers/json?all=1 requests per second over 100+ containers
// with 4 concurrent clients; for svcd and, when given, Docker Engine with the same busybox.
import { caller, importBusyboxAs, median, sideBySide, type Call } from './bench-engine';
import type { BenchOptions, BenchRow, BenchSuite } from './types';

const lifecycleRuns = 30;
const listContainers = 110;
const listClients = 4;
const listSeconds = 5;
const image = 'svc-bench-containers/busybox:latest';

const createBody = (cmd: string[]) => ({ Image: image, Cmd: cmd, HostConfig: { NetworkMode: 'none' } });

interface LifecycleTimes {
  total: number;
  create: number;
  start: number;
  wait: number;
  delete: number;
}

const phases = ['create', 'start', 'wait', 'delete'] as const;

/** Milliseconds of each call, and of all four, for one `true` container. */
async function lifecycleOnce(call: Call): Promise<LifecycleTimes> {
  const at = () => Number(process.hrtime.bigint()) / 1e6;
  const t0 = at();
  const { Id } = (await call('POST', '/containers/create', createBody(['true']))).json<{ Id: string }>();
  const t1 = at();
  await call('POST', `/containers/${Id}/start`);
  const t2 = at();
  await call('POST', `/containers/${Id}/wait`);
  const t3 = at();
  await call('DELETE', `/containers/${Id}`);
  const t4 = at();
  return { total: t4 - t0, create: t1 - t0, start: t2 - t1, wait: t3 - t2, delete: t4 - t3 };
}

/** The median of each figure over the runs (each its own median, so they need not add up). */
async function lifecycleMedians(call: Call): Promise<LifecycleTimes> {
  await lifecycleOnce(call);
  const runs: LifecycleTimes[] = [];
  for (let i = 0; i < lifecycleRuns; i++) runs.push(await lifecycleOnce(call));
  const of = (key: keyof LifecycleTimes) => median(runs.map((run) => run[key]));
  return {
    total: of('total'),
    create: of('create'),
    start: of('start'),
    wait: of('wait'),
    delete: of('delete'),
  };
}

async function listRate(call: Call): Promise<number> {
  const ids: string[] = [];
  for (let i = 0; i < listContainers; i++) {
    ids.push((await call('POST', '/containers/create', createBody(['true']))).json<{ Id: string }>().Id);
  }
  try {
    let count = 0;
    const deadline = Date.now() + listSeconds * 1000;
    const client = async () => {
      while (Date.now() < deadline) {
        const list = (await call('GET', '/containers/json?all=1')).json<unknown[]>();
        if (list.length < listContainers) throw new Error(`list returned ${list.length} containers`);
        count++;
      }
    };
    const start = Date.now();
    await Promise.all(Array.from({ length: listClients }, client));
    return count / ((Date.now() - start) / 1000);
  } finally {
    for (const id of ids) await call('DELETE', `/containers/${id}?force=1`).catch(() => undefined);
  }
}

/** The lifecycle row's figure alone, for an engine of its own (the rootless suite). */
export async function lifecycleOf(socket: string): Promise<number> {
  await importBusyboxAs(socket, image);
  return (await lifecycleMedians(caller(socket))).total;
}

type Figures = { list: number } & { [K in keyof LifecycleTimes as `lifecycle-${K}`]: number };

async function measure(socket: string): Promise<Figures> {
  await importBusyboxAs(socket, image);
  const call = caller(socket);
  const times = await lifecycleMedians(call);
  return {
    'lifecycle-total': times.total,
    'lifecycle-create': times.create,
    'lifecycle-start': times.start,
    'lifecycle-wait': times.wait,
    'lifecycle-delete': times.delete,
    list: await listRate(call),
  };
}

async function run(options: BenchOptions): Promise<BenchRow[]> {
  const { row } = await sideBySide(options, measure);
  return [
    row('container create+start+wait+delete (true), median', 'ms', 'lifecycle-total', false, '>= 2x dockerd'),
    ...phases.map((phase) =>
      row(`the same, ${phase} alone, median`, 'ms', `lifecycle-${phase}`, false, '>= 1x dockerd'),
    ),
    row(
      `GET /containers/json?all=1, ${listContainers} containers, ${listClients} clients`,
      'req/s',
      'list',
      true,
      '>= 2x dockerd',
    ),
  ];
}

export const containersSuite: BenchSuite = { name: 'containers', run };

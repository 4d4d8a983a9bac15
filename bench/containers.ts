// Container lifecycle through the Engine API: the median create+start+wait+delete latency of a
// `true` container, and GET /containers/json?all=1 requests per second over 100+ containers
// with 4 concurrent clients; for svcd and, when given, Docker Engine with the same busybox.
import { destroySvcd, startSvcd } from '../daemon/testing/svcd-harness';
import { caller, importBusyboxAs, median, type Call } from './bench-engine';
import type { BenchOptions, BenchRow, BenchSuite } from './types';

const lifecycleRuns = 30;
const listContainers = 110;
const listClients = 4;
const listSeconds = 5;
const image = 'svc-bench-containers/busybox:latest';

const createBody = (cmd: string[]) => ({ Image: image, Cmd: cmd, HostConfig: { NetworkMode: 'none' } });

/** Milliseconds for create, start, wait and delete of one `true` container. */
async function lifecycleOnce(call: Call): Promise<number> {
  const t0 = process.hrtime.bigint();
  const { Id } = (await call('POST', '/containers/create', createBody(['true']))).json<{ Id: string }>();
  await call('POST', `/containers/${Id}/start`);
  await call('POST', `/containers/${Id}/wait`);
  await call('DELETE', `/containers/${Id}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

async function lifecycleMedian(call: Call): Promise<number> {
  await lifecycleOnce(call);
  const times: number[] = [];
  for (let i = 0; i < lifecycleRuns; i++) times.push(await lifecycleOnce(call));
  return median(times);
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
  return lifecycleMedian(caller(socket));
}

async function measure(socket: string): Promise<{ lifecycle: number; list: number }> {
  await importBusyboxAs(socket, image);
  const call = caller(socket);
  return { lifecycle: await lifecycleMedian(call), list: await listRate(call) };
}

async function run(options: BenchOptions): Promise<BenchRow[]> {
  const svcd = await startSvcd({ dir: options.workDir });
  let ours: { lifecycle: number; list: number };
  try {
    ours = await measure(svcd.socket);
  } finally {
    await destroySvcd(svcd);
  }
  const theirs = options.dockerHost ? await measure(options.dockerHost.replace(/^unix:\/\//, '')) : undefined;
  return [
    {
      name: 'container create+start+wait+delete (true), median',
      unit: 'ms',
      ours: ours.lifecycle,
      theirs: theirs?.lifecycle,
      higherIsBetter: false,
      target: '<= 0.5x dockerd (aim <= 110 ms)',
    },
    {
      name: `GET /containers/json?all=1, ${listContainers} containers, ${listClients} clients`,
      unit: 'req/s',
      ours: ours.list,
      theirs: theirs?.list,
      higherIsBetter: true,
      target: '>= 2x dockerd',
    },
  ];
}

export const containersSuite: BenchSuite = { name: 'containers', run };
